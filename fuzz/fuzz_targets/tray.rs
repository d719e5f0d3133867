//! The `tray` target: see `m1nd_fuzz::tray` for the input and the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| m1nd_fuzz::tray::check(data));
