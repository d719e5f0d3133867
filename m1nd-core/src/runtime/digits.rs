//! Decimal digits without the formatting machinery, on the composer's hot path.

/// Append `v` in decimal.
pub fn push_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

/// `v` in decimal.
pub fn u64_text(v: u64) -> String {
    let mut s = String::with_capacity(20);
    push_u64(&mut s, v);
    s
}

#[cfg(test)]
mod tests {
    use super::u64_text;

    #[test]
    fn matches_display() {
        for v in [0, 7, 10, 99, 100, 12345, u64::MAX - 1, u64::MAX] {
            assert_eq!(u64_text(v), v.to_string());
        }
    }
}
