//! Compiling a fleet: `fleet.toml` (M001), every member's policy with the
//! laws of one gateway policy, then the members together (M017). Every
//! problem is reported, not just the first.

use super::config::{self, Entry, FLEET_FILE};
use super::m017;
use super::problem::{FleetDiagnostic, FleetFile, FleetLoc, FleetProblem};
use super::sources::FleetSources;
use super::{Fleet, Member, served_name};
use crate::policy::{Law, compile_gateway, gateway_declarations};

/// The longest tool or prompt name the MCP specification allows.
const MAX_SERVED_NAME: usize = 128;

/// Compile the fleet in `sources`, or return every problem found.
pub fn compile_fleet(sources: &FleetSources) -> Result<Fleet, Vec<FleetProblem>> {
    let whole = |title: String, help: &str| {
        let at = FleetLoc { file: FleetFile::Config, span: 0..0 };
        vec![FleetProblem::Fleet(FleetDiagnostic::new(Law::M001, at, title).help(help))]
    };
    let text = sources.config().map_err(|problem| {
        whole(
            format!("{FLEET_FILE} cannot be used: {problem}"),
            "a fleet directory holds fleet.toml, a regular UTF-8 file naming each upstream with its policy \
             directory, prefix and command or url (see the guide's gateway page)",
        )
    })?;
    let entries = config::parse(text).map_err(|d| d.into_iter().map(FleetProblem::Fleet).collect::<Vec<_>>())?;
    if sources.members().len() != entries.len() {
        return Err(whole(
            format!(
                "{FLEET_FILE} names {} upstreams, and {} policies were read",
                entries.len(),
                sources.members().len()
            ),
            "read the fleet again: fleet.toml changed while it was being read",
        ));
    }
    let mut problems = Vec::new();
    let mut gateways = Vec::new();
    for (index, member) in sources.members().iter().enumerate() {
        match compile_gateway(member) {
            Ok(gateway) => gateways.push(gateway),
            Err(found) => {
                problems.extend(found.into_iter().map(|diagnostic| FleetProblem::Member { member: index, diagnostic }))
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // Every member compiled, so each parses: one entry per member, in order.
    let declared: Vec<_> = sources.members().iter().map(|m| gateway_declarations(m).unwrap_or_default()).collect();
    let mut fleet_problems = Vec::new();
    too_long(&entries, &declared, &mut fleet_problems);
    m017::check(&entries, &declared, &mut fleet_problems);
    if !fleet_problems.is_empty() {
        return Err(fleet_problems.into_iter().map(FleetProblem::Fleet).collect());
    }
    let members = entries.into_iter().zip(gateways).map(|(entry, gateway)| Member { entry, gateway }).collect();
    Ok(Fleet { members })
}

/// M001: a served name must still be a tool name the MCP specification allows.
fn too_long(entries: &[Entry], declared: &[crate::policy::Declared], out: &mut Vec<FleetDiagnostic>) {
    for (member, (entry, declared)) in entries.iter().zip(declared).enumerate() {
        for (name, span) in declared.tools.iter().chain(&declared.prompts) {
            let served = served_name(&entry.prefix, name);
            if served.len() > MAX_SERVED_NAME {
                out.push(
                    FleetDiagnostic::new(
                        Law::M001,
                        FleetLoc { file: FleetFile::Config, span: entry.at.prefix.clone() },
                        format!(
                            "`{}` + `{name}` is {} characters; a served name may have at most {MAX_SERVED_NAME}",
                            entry.prefix,
                            served.len()
                        ),
                    )
                    .related(
                        FleetLoc {
                            file: FleetFile::Member(member, crate::policy::PolicyFile::Tools),
                            span: span.clone(),
                        },
                        "declared here",
                    )
                    .help(
                        "shorten the prefix: the MCP specification allows tool and prompt names of 1 to 128 characters",
                    ),
                );
            }
        }
    }
}
