//! The `store_sqlite` target: see `m1nd_fuzz::store_sqlite` for the input and the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| m1nd_fuzz::store_sqlite::check(data));
