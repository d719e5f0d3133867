//! A session's mode: read-only or read-write, and how a session comes by it.
//!
//! The invariant: a session is read-write only when everything that has a say
//! asks for read-write. A gateway policy declares its mode (`mode = "..."` in
//! `tools.toml`; a policy that declares none is read-only), and the command
//! line (`--read-only`, `M1ND_READ_ONLY`) can only make a session stricter,
//! never looser: when the two disagree, read-only wins. The same words name
//! the mode everywhere it is shown — the policy key, `serverInfo`, the
//! instructions and the attestation — from [`SessionMode::key`].

/// Whether a session may reach the tools the deny list names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SessionMode {
    /// The deny list's tools are neither listed nor callable.
    #[default]
    ReadOnly,
    /// Every declared tool is listed and callable (pins still hold).
    ReadWrite,
}

impl SessionMode {
    /// Every mode, in the order the policy's help lists them.
    pub const ALL: [SessionMode; 2] = [SessionMode::ReadOnly, SessionMode::ReadWrite];

    /// The word for the mode: the value of a policy's `mode` key, and what
    /// `serverInfo`, the instructions and the attestation announce.
    pub const fn key(self) -> &'static str {
        match self {
            SessionMode::ReadOnly => "read-only",
            SessionMode::ReadWrite => "read-write",
        }
    }

    /// The mode a policy's `mode` value names, exactly.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.key() == key)
    }

    /// `read_only` as a mode.
    pub const fn from_read_only(read_only: bool) -> Self {
        if read_only { SessionMode::ReadOnly } else { SessionMode::ReadWrite }
    }

    pub const fn is_read_only(self) -> bool {
        matches!(self, SessionMode::ReadOnly)
    }

    /// The mode of a session whose policy declares `self` and whose command
    /// line asked for read-only (`asked_read_only`): the stricter of the two.
    pub const fn with_command_line(self, asked_read_only: bool) -> Self {
        Self::from_read_only(asked_read_only || self.is_read_only())
    }
}

impl std::fmt::Display for SessionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_wins_whoever_asks_for_it() {
        use SessionMode::*;
        assert_eq!(ReadWrite.with_command_line(false), ReadWrite);
        assert_eq!(ReadWrite.with_command_line(true), ReadOnly);
        assert_eq!(ReadOnly.with_command_line(false), ReadOnly);
        assert_eq!(ReadOnly.with_command_line(true), ReadOnly);
        assert_eq!(SessionMode::default(), ReadOnly, "a policy that declares no mode is read-only");
    }

    #[test]
    fn every_key_reads_back_and_nothing_else_does() {
        for mode in SessionMode::ALL {
            assert_eq!(SessionMode::from_key(mode.key()), Some(mode));
        }
        for near in ["readonly", "Read-Only", "read_only", "rw", ""] {
            assert_eq!(SessionMode::from_key(near), None, "{near}");
        }
    }
}
