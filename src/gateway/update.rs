//! `m1nd policy import --update [--apply]`: compare a reviewed gateway policy
//! with its upstream now, and on request write the update into the policy.
//!
//! 1. **Read, check, then ask.** The policy must compile and its stored
//!    definitions must match its pins ([`Reviewed::checked`]) before the
//!    upstream is started: a report built on a policy that breaks its laws,
//!    or on stored text that is not what was reviewed, would mislead.
//! 2. **Reporting writes nothing.** Without `--apply` the policy directory
//!    is only read; when definitions changed the report says so and the
//!    command fails ([`Report::pending`]), so a script or CI job notices.
//! 3. **Applying writes only pins and stored definitions** ([`super::apply`]).
//! 4. **A missing upstream is an error, never an empty listing.** If the
//!    upstream cannot be started or listed, nothing is compared and nothing
//!    is written ([`GatewayError::UpstreamUnreachable`]).

use m1nd_policy::PolicyFile;
use m1nd_policy::gateway::surfaces::Kind;

use super::apply::applied;
use super::error::GatewayError;
use super::import::{ImportOptions, Report, listing};
use super::import_capabilities::needing;
use super::plan::Plan;
use super::reviewed::Reviewed;
use crate::invocation::{m1nd, shell_word};

/// Compare the policy in `options.dir` with the upstream; apply if asked.
pub async fn update(options: &ImportOptions, apply: bool) -> Result<Report, GatewayError> {
    let dir = &options.dir;
    let written = dir.to_string_lossy();
    let display = written.trim_end_matches('/');
    let display = if display.is_empty() { written.as_ref() } else { display };
    let tools_path = dir.join(PolicyFile::Tools.file_name());
    if !tools_path.is_file() {
        return Err(GatewayError::NoPolicy(dir.clone()));
    }
    let gateway = super::load(dir, display)?;
    let reviewed = Reviewed::checked(dir, &gateway)?;
    let unreachable = |source| GatewayError::UpstreamUnreachable { dir: dir.clone(), source: Box::new(source) };
    let listed = listing(options, &gateway.client).await.map_err(unreachable)?;
    let needs = needing(options, &gateway.client, &listed.tools).await.map_err(unreachable)?;
    let plan = Plan::new(&gateway, &listed.tools, &listed.surfaces, reviewed.as_ref());
    let mut text = plan.report(display);
    if let Some(note) = reviewed.as_ref().and_then(|r| r.stale_note(display, &gateway)).filter(|_| !apply) {
        text.push_str(&format!("note: {note}\n"));
    }
    let again = |extra: &str| m1nd(&format!("policy import --update{extra} --policy {}", shell_word(display)));
    let tools_display = format!("{display}/{}", PolicyFile::Tools.file_name());
    text.push_str(&super::import_capabilities::report(&needs, &gateway.client, &tools_display, &again("")));
    if let Some(note) = reviewed.as_ref().and_then(|r| r.stale_note(display, &gateway)).filter(|_| !apply) {
        text.push_str(&format!("note: {note}\n"));
    }
    if !apply {
        let pending = (!plan.changed.is_empty()).then(|| {
            format!(
                "{} changed upstream and nothing was applied: the gateway hides and refuses {} until then. Review \
                 the diff above, then write it into the policy with `{}` and the same upstream (only the \
                 `definition` pins and {} change), and commit the result for review",
                counted(plan.changed.len()),
                if plan.changed.len() == 1 { "it" } else { "them" },
                again(" --apply"),
                super::reviewed::DEFINITIONS_FILE,
            )
        });
        return Ok(Report { text, pending });
    }
    if !plan.applies(reviewed.as_ref()) {
        text.push_str("nothing to apply: every pin matches and the stored definitions are complete\n");
        return Ok(Report { text, pending: None });
    }
    let read = |path: std::path::PathBuf| {
        std::fs::read_to_string(&path).map_err(|source| GatewayError::Io { op: "read", path, source })
    };
    let tools = read(tools_path)?;
    let deny = read(dir.join(PolicyFile::Deny.file_name()))?;
    let files = applied(display, &tools, &deny, &gateway, &plan)
        .map_err(|problem| GatewayError::NotApplied { dir: dir.clone(), problem })?;
    files.write(dir)?;
    text.push_str(&format!(
        "applied: {} in {display}/tools.toml, {} stored in {display}/{}; the deny list and the mode are as \
         reviewed. Check with `{}` and commit the diff for review.\n",
        counted_pins(plan.changed.len()),
        plan.store.definitions.len() + Kind::ALL.iter().map(|k| plan.store.surfaces.of(*k).len()).sum::<usize>(),
        super::reviewed::DEFINITIONS_FILE,
        m1nd(&format!("policy check --gateway {}", shell_word(display))),
    ));
    Ok(Report { text, pending: None })
}

fn counted(n: usize) -> String {
    format!("{n} definition{}", if n == 1 { "" } else { "s" })
}

fn counted_pins(n: usize) -> String {
    format!("{n} pin{} updated", if n == 1 { "" } else { "s" })
}
