//! Which member of a fleet answers for a name: built once from the
//! compiled fleet, where law M017 made every answer unique.
//!
//! A tool or prompt is found by its served name (prefix + name) folded as a
//! client may spell it, and handed to its member under the name its policy
//! declares, so the member's own check resolves it as it would alone. A
//! resource is found by its exact URI, or by the one member template that
//! matches it.

use std::collections::HashMap;

use m1nd_policy::gateway::fleet::{Fleet, served_name};
use m1nd_policy::gateway::uri_template::Template;
use m1nd_policy::guard::printable;
use m1nd_policy::names::spec::fold;
use m1nd_policy::names::{did_you_mean, suggest};

/// A name or URI no member of the fleet answers for. Each variant holds the
/// caller's text already made printable (`guard::printable`), so a refusal
/// shows it as data; `Display` is the refusal a client reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unrouted {
    /// A tool or prompt name no member's policy declares, and what is served instead.
    #[error("`{spelled}` is not a {noun} of this gateway: no upstream's policy declares it; {help}")]
    Name { noun: &'static str, spelled: String, help: String },
    /// A URI no member declares and no member template matches.
    #[error("`{0}` is not a resource of this gateway: no upstream's policy declares it or a template that matches it")]
    Resource(String),
    /// A resource template no member declares, written exactly.
    #[error("`{0}` is not a resource template of this gateway")]
    Template(String),
    /// A completion whose reference is neither a prompt nor a resource template.
    #[error("a completion names a prompt (`ref/prompt`) or a resource template (`ref/resource`)")]
    NoReference,
}

/// One kind of prefixed name: folded served name → (member, declared name).
#[derive(Default)]
struct Names {
    by_folded: HashMap<String, (usize, String)>,
    /// Every served name, in fleet order, for "did you mean".
    served: Vec<String>,
}

impl Names {
    fn insert(&mut self, member: usize, prefix: &str, declared: &str) {
        let served = served_name(prefix, declared);
        // M017 rules out two names that fold together; were one to slip
        // through, the first declared keeps the name rather than the last.
        self.by_folded.entry(fold(&served)).or_insert_with(|| (member, declared.to_owned()));
        self.served.push(served);
    }

    /// The member and declared name for a client's `spelled` name, or a
    /// refusal that says what is served instead: the same name under each
    /// prefix that serves it (the usual slip is a name written without its
    /// upstream's prefix), else the nearest served name.
    fn find(&self, spelled: &str, noun: &'static str, prefixes: &[String]) -> Result<(usize, &str), Unrouted> {
        if let Some((member, declared)) = self.by_folded.get(&fold(spelled)) {
            return Ok((*member, declared));
        }
        let prefixed: Vec<String> = prefixes
            .iter()
            .filter_map(|prefix| self.by_folded.get(&fold(&served_name(prefix, spelled))))
            .map(|(member, declared)| served_name(&prefixes[*member], declared))
            .collect();
        let help = if prefixed.is_empty() {
            // `suggest` bounds its own work by the served names' lengths.
            let near = suggest(spelled, self.served.iter().map(String::as_str));
            did_you_mean(near, "", || {
                format!("the {noun}s served here are an upstream's prefix followed by its {noun}'s name")
            })
        } else {
            let listed: Vec<String> = prefixed.iter().map(|name| format!("`{name}`")).collect();
            format!("did you mean {}? each upstream's {noun}s are served under its prefix", listed.join(" or "))
        };
        Err(Unrouted::Name { noun, spelled: printable(spelled), help })
    }
}

/// Every route of one fleet.
#[derive(Default)]
pub struct Routes {
    tools: Names,
    prompts: Names,
    resources: HashMap<String, usize>,
    /// Each member's prefix, in fleet order.
    prefixes: Vec<String>,
    /// Each member's templates, by their exact text and parsed.
    templates: Vec<(String, Template, usize)>,
}

impl Routes {
    pub fn new(fleet: &Fleet) -> Self {
        let mut routes = Routes::default();
        for (member, m) in fleet.members.iter().enumerate() {
            let prefix = &m.entry.prefix;
            routes.prefixes.push(prefix.clone());
            for tool in m.gateway.tools.iter() {
                routes.tools.insert(member, prefix, &tool.verb);
            }
            let surfaces = &m.gateway.surfaces;
            for prompt in surfaces.prompts.iter() {
                routes.prompts.insert(member, prefix, &prompt.key);
            }
            for resource in surfaces.resources.iter() {
                routes.resources.insert(resource.key.to_string(), member);
            }
            for template in surfaces.templates.iter() {
                if let Ok(parsed) = Template::parse(&template.key) {
                    routes.templates.push((template.key.to_string(), parsed, member));
                }
            }
        }
        routes
    }

    /// The member and declared verb a client's tool name means.
    pub fn tool(&self, spelled: &str) -> Result<(usize, &str), Unrouted> {
        self.tools.find(spelled, "tool", &self.prefixes)
    }

    /// The member and declared prompt a client's prompt name means.
    pub fn prompt(&self, spelled: &str) -> Result<(usize, &str), Unrouted> {
        self.prompts.find(spelled, "prompt", &self.prefixes)
    }

    /// The member that answers for a resource URI: the one declaring it, or
    /// the one whose template matches it.
    pub fn resource(&self, uri: &str) -> Result<usize, Unrouted> {
        if let Some(member) = self.resources.get(uri) {
            return Ok(*member);
        }
        self.templates
            .iter()
            .find(|(_, parsed, _)| parsed.matches(uri))
            .map(|(_, _, member)| *member)
            .ok_or_else(|| Unrouted::Resource(printable(uri)))
    }

    /// The member that declares the resource template written exactly `template`.
    pub fn template(&self, template: &str) -> Result<usize, Unrouted> {
        self.templates
            .iter()
            .find(|(key, _, _)| key == template)
            .map(|(_, _, member)| *member)
            .ok_or_else(|| Unrouted::Template(printable(template)))
    }
}

#[cfg(test)]
mod tests {
    use m1nd_policy::gateway::fleet::{FleetSources, compile_fleet};
    use m1nd_policy::{PolicyFile, PolicySources};

    use super::*;

    fn routes() -> Routes {
        let member = |dir: &str, tools: &'static str| {
            PolicySources::from_bytes(dir, move |file| match file {
                PolicyFile::Tools => Some(tools.as_bytes()),
                PolicyFile::Deny => Some(b"tools = []\n".as_slice()),
                _ => None,
            })
        };
        let config = "[upstreams.repo]\npolicy = \"a\"\nprefix = \"repo_\"\ncommand = [\"a\"]\n\n\
                      [upstreams.files]\npolicy = \"b\"\nprefix = \"fs_\"\ncommand = [\"b\"]\n";
        let sources = FleetSources::from_parts(
            "f",
            Ok(config.to_owned()),
            vec![
                member("f/a", "[verbs.git_status]\nsummary = \"s\"\n[prompts.review]\n"),
                member("f/b", "[verbs.read_file]\nsummary = \"s\"\n[templates.\"file:///{name}\"]\n"),
            ],
        );
        Routes::new(&compile_fleet(&sources).expect("a sound fleet"))
    }

    #[test]
    fn a_served_name_in_any_spelling_reaches_its_member_under_the_declared_name() {
        let routes = routes();
        assert_eq!(routes.tool("repo_git_status"), Ok((0, "git_status")));
        assert_eq!(routes.tool("REPO-git-status"), Ok((0, "git_status")));
        assert_eq!(routes.tool("fs.read_file"), Ok((1, "read_file")));
        assert_eq!(routes.prompt("Repo_Review"), Ok((0, "review")));
    }

    #[test]
    fn a_name_without_its_prefix_is_refused_with_the_served_name() {
        let routes = routes();
        let told = routes.tool("git_status").unwrap_err().to_string();
        assert!(told.contains("did you mean `repo_git_status`?"), "{told}");
        let near = routes.tool("fs_read_fil").unwrap_err().to_string();
        assert!(near.contains("did you mean `fs_read_file`?"), "{near}");
        let far = routes.tool("delete_everything").unwrap_err().to_string();
        assert!(far.ends_with("the tools served here are an upstream's prefix followed by its tool's name"), "{far}");
        // A caller's string is shown as data, never raw.
        let hostile = routes.tool("x\u{202e}\u{1b}[2J").unwrap_err().to_string();
        assert!(!hostile.contains('\u{202e}') && !hostile.contains('\u{1b}'), "{hostile:?}");
    }

    #[test]
    fn a_uri_reaches_the_member_whose_template_matches_it_and_no_other() {
        let routes = routes();
        assert_eq!(routes.resource("file:///notes"), Ok(1));
        assert!(routes.resource("file:///a/b").is_err());
        assert!(routes.resource("memo://x").unwrap_err().to_string().contains("no upstream's policy declares it"));
        assert_eq!(routes.template("file:///{name}"), Ok(1));
        assert!(routes.template("file:///{other}").is_err());
    }
}
