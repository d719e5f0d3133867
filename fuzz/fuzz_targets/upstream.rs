//! The `upstream` target: see `m1nd_fuzz::upstream` for the input and the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| m1nd_fuzz::upstream::check(data));
