//! The `uri_template` target: see `m1nd_fuzz::uri_template` for the input and the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| m1nd_fuzz::uri_template::check(data));
