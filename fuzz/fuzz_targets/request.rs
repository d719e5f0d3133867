//! The `request` target: see `m1nd_fuzz::request` for the input and the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| m1nd_fuzz::request::check(data));
