//! Door links: where a door points the human, as a static address.
//!
//! A link is written in the policy and never built from state, so the only
//! thing to check is its shape: a relative path on the server that serves
//! the cockpit (`/tray`), or a loopback URL (`http://127.0.0.1:1338/tray`).
//! Nothing that could carry data (a query, a fragment, escapes,
//! placeholders) and no other host.

/// The longest link, in bytes.
pub const MAX_LINK_BYTES: usize = 96;

/// The loopback origins a link may name (any port).
const LOOPBACK: [&str; 3] = ["http://127.0.0.1", "http://localhost", "http://[::1]"];

/// Why `link` is not a static relative path or loopback URL, if it is not.
pub fn check_link(link: &str) -> Result<(), &'static str> {
    if link.is_empty() || link.len() > MAX_LINK_BYTES {
        return Err("a link is 1 to 96 bytes");
    }
    if link.contains(['{', '}']) {
        return Err("a link is static: it has no placeholders");
    }
    let path = match LOOPBACK.iter().find_map(|origin| link.strip_prefix(origin)) {
        Some(rest) => {
            let after_port = match rest.strip_prefix(':') {
                Some(port) => {
                    let digits = port.bytes().take_while(u8::is_ascii_digit).count();
                    if digits == 0 || digits > 5 {
                        return Err("a loopback URL's port is 1 to 5 digits");
                    }
                    &port[digits..]
                }
                None => rest,
            };
            if after_port.is_empty() {
                return Ok(());
            }
            after_port
        }
        None if link.starts_with('/') && !link.starts_with("//") => link,
        None => {
            return Err("a link is a path starting with `/` or a loopback URL (http://127.0.0.1, localhost, [::1])");
        }
    };
    if !path.starts_with('/') {
        return Err("a loopback URL's path starts with `/`");
    }
    if !path.bytes().all(|b| b.is_ascii_alphanumeric() || b"/-._~".contains(&b)) {
        return Err("a link's path holds only letters, digits and `/-._~` (no query, fragment or escapes)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_paths_and_loopback_urls_only() {
        for ok in
            ["/tray", "/", "/tray/missions", "http://127.0.0.1:1338/tray", "http://localhost/tray", "http://[::1]:80"]
        {
            assert_eq!(check_link(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "tray",
            "//evil.example/tray",
            "https://example.com/tray",
            "http://127.0.0.1.evil.example/",
            "http://localhost@evil.example/",
            "/tray/{count}",
            "/tray?x=1",
            "/tray#top",
            "/tr%61y",
            "javascript:alert(1)",
            "http://127.0.0.1:/tray",
            "/tray\n",
            "/tr ay",
        ] {
            assert!(check_link(bad).is_err(), "{bad:?}");
        }
        assert!(check_link(&format!("/{}", "a".repeat(MAX_LINK_BYTES))).is_err());
    }
}
