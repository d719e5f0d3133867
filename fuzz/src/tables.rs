//! The compiled policies the store and gateway targets run over, compiled
//! once per process from the repository's own policies.
//!
//! A fixture that stops compiling is a harness error, reported with the
//! compiler's own diagnostics.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use m1nd_policy::gateway::{Gateway, digest};
use m1nd_policy::runtime::{WorstCase, worst_case};
use m1nd_policy::{Cockpit, PolicyFile, PolicySources, compile, compile_gateway};
use serde_json::Value;

/// The repository, found from this crate's manifest.
fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// The cockpit policies the composer is fuzzed over: the real one, and the
/// ui suite's passing fixtures (a small menu, and the same with the deny list grown).
pub const COCKPIT_POLICIES: [&str; 3] = ["policy", "tests/ui/policies/base", "tests/ui/policies/deny_grows"];

/// A cockpit policy with the worst case M011 proved for it.
pub struct Menu {
    pub table: Cockpit,
    pub worst: WorstCase,
}

pub fn cockpits() -> &'static [Menu] {
    static MENUS: OnceLock<Vec<Menu>> = OnceLock::new();
    MENUS.get_or_init(|| {
        COCKPIT_POLICIES
            .iter()
            .map(|dir| {
                let sources = PolicySources::read_dir(&repo(dir), dir);
                let table = compile(&sources).unwrap_or_else(|p| panic!("{}", rendered(&p, &sources)));
                let worst = worst_case(&table);
                Menu { table, worst }
            })
            .collect()
    })
}

/// The honest definition the rug-pull upstream (`tests/gateway/rugpull_server.py`)
/// starts with; the fuzz gateway policy pins its digest.
pub const WEATHER: &str = r#"{"name": "fetch_weather", "description": "Returns the weather for a city.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, "annotations": {"readOnlyHint": true}}"#;

/// A gateway policy with every kind of pin, its `under` directories in
/// [`scratch`]: `{root}` and `{weather}` are filled in at start-up.
const FUZZ_TOOLS: &str = r#"[verbs.fetch_weather]
summary = "Returns the weather for a city"
requires = ["city"]
definition = "{weather}"

[verbs.read_file]
summary = "Reads a file"
requires = ["path"]
accepts = ["encoding"]
pins.path = { under = ["{root}/repo"] }

[verbs.read_many]
summary = "Reads several files"
requires = ["paths"]
pins.paths = { under = ["{root}/repo", "{root}/docs"], hard_links = true }

[verbs.write_file]
summary = "Writes a file"
requires = ["path", "content"]
pins.path = { under = ["{root}/repo"] }

[verbs.git_branch]
summary = "Lists branches"
accepts = ["branch_type"]
pins.branch_type = { allowed = ["local", "remote"] }

[verbs.git_checkout]
summary = "Switches branches"
requires = ["branch_name"]

[verbs.list_directory]
summary = "Lists a directory"
requires = ["path"]
pins.path = { under = ["{root}/repo"] }
"#;

const FUZZ_DENY: &str = r#"tools = ["write_file"]

[status_only.git_checkout]
argument = "branch_name"
allowed = ["main"]
"#;

/// The gateway policies: m1nd's own (retired, human-only and status-only
/// verbs, common arguments), the fuzz policy (every pin), and the reviewed
/// mcp-server-git policy of the gateway suite (definition pins).
pub fn gateways() -> &'static [Gateway] {
    static GATEWAYS: OnceLock<Vec<Gateway>> = OnceLock::new();
    GATEWAYS.get_or_init(|| {
        let root = scratch();
        let weather: Value = serde_json::from_str(WEATHER).expect("WEATHER is JSON");
        let tools = FUZZ_TOOLS
            .replace("{root}", root.to_str().expect("a UTF-8 scratch path"))
            .replace("{weather}", &digest(&weather));
        let fuzz = PolicySources::from_bytes("fuzz-gateway", |f| match f {
            PolicyFile::Tools => Some(tools.as_bytes()),
            PolicyFile::Deny => Some(FUZZ_DENY.as_bytes()),
            _ => None,
        });
        let dirs = ["policy", "tests/gateway/policies/git"].map(|dir| PolicySources::read_dir(&repo(dir), dir));
        [&dirs[0], &fuzz, &dirs[1]]
            .into_iter()
            .map(|sources| compile_gateway(sources).unwrap_or_else(|p| panic!("{}", rendered(&p, sources))))
            .collect()
    })
}

/// The directories the fuzz policy pins, made once: `repo/` (with `src/`,
/// `link`, a symlink to `secret/`, `dangling`, a symlink to the missing
/// `secret/new.txt`, and `twin`, a hard link to `secret/key`), `docs/`,
/// `secret/` and `repo-evil/`.
pub fn scratch() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join("m1nd-fuzz-gateway");
        for dir in ["repo/src", "docs", "secret", "repo-evil"] {
            std::fs::create_dir_all(root.join(dir)).expect("scratch directories");
        }
        let made = |what: &str, result: std::io::Result<()>| match result {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("scratch {what}: {e}"),
            _ => {}
        };
        made("symlink", std::os::unix::fs::symlink(root.join("secret"), root.join("repo/link")));
        made("dangling symlink", std::os::unix::fs::symlink("../secret/new.txt", root.join("repo/dangling")));
        if !root.join("secret/key").exists() {
            std::fs::write(root.join("secret/key"), "key").expect("scratch file");
        }
        made("hard link", std::fs::hard_link(root.join("secret/key"), root.join("repo/twin")));
        std::fs::canonicalize(&root).expect("canonical scratch root")
    })
    .clone()
}

fn rendered(problems: &[m1nd_policy::Diagnostic], sources: &PolicySources) -> String {
    problems.iter().map(|d| d.render(sources)).collect::<Vec<_>>().join("\n")
}
