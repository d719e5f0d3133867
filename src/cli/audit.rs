//! `--audit FILE` and `--audit-arguments`: the audit trail's flags, the same
//! for `m1nd serve` and `m1nd gateway` (`m1nd::audit` says what is written).

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use m1nd::audit::{Audit, AuditArguments};

use super::Failure;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Append one JSON line per decision on a tools/call to FILE; a call whose line cannot be
    /// written is refused, and a FILE that cannot be opened stops the server.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Write each call's arguments to the audit file: `hashed` (blake3, the default when given)
    /// or `plain` (values may hold secrets). Without it no argument value is written.
    #[arg(long, value_name = "HOW", requires = "audit", num_args = 0..=1, default_missing_value = "hashed")]
    audit_arguments: Option<AuditArgumentsArg>,
}

/// `--audit-arguments`'s values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum AuditArgumentsArg {
    Hashed,
    Plain,
}

impl AuditArgs {
    /// The audit file, open for appending, or `None` without `--audit`; a
    /// file that cannot be opened is a usage error (exit 2) naming it.
    pub fn open(&self) -> Result<Option<Arc<Audit>>, Failure> {
        let Some(path) = &self.audit else { return Ok(None) };
        let arguments = match self.audit_arguments {
            None => AuditArguments::Omitted,
            Some(AuditArgumentsArg::Hashed) => AuditArguments::Hashed,
            Some(AuditArgumentsArg::Plain) => AuditArguments::Plain,
        };
        let audit = Audit::open(path, arguments).map_err(|e| Failure::usage(e.to_string()))?;
        Ok(Some(Arc::new(audit)))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        audit: AuditArgs,
    }

    fn parse(args: &[&str]) -> Result<AuditArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("m1nd").chain(args.iter().copied())).map(|c| c.audit)
    }

    #[test]
    fn arguments_are_hashed_when_asked_without_a_word_and_never_without_a_file() {
        let mode = |args: &[&str]| {
            let dir = tempfile::tempdir().expect("temp dir");
            let file = dir.path().join("audit.jsonl");
            let file = file.to_str().expect("utf-8");
            let audit = parse(&[&["--audit", file], args].concat()).expect("parses").open().expect("opens");
            audit.expect("an audit file").arguments_mode()
        };
        assert_eq!(mode(&[]), AuditArguments::Omitted);
        assert_eq!(mode(&["--audit-arguments"]), AuditArguments::Hashed);
        assert_eq!(mode(&["--audit-arguments", "hashed"]), AuditArguments::Hashed);
        assert_eq!(mode(&["--audit-arguments", "plain"]), AuditArguments::Plain);
        assert!(parse(&["--audit-arguments", "plain"]).is_err(), "needs --audit");
        assert!(parse(&[]).expect("parses").open().expect("nothing to open").is_none());
    }
}
