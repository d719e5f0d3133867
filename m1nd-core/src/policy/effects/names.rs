//! The closed vocabularies of upstream's action catalog (`m1nd-control`'s
//! `Effect`, `AuthorityFloor`, `RiskClass` and `Ingress`), spelled as its JSON
//! spells them. The names are facts about m1nd: a catalog or a mode that uses
//! any other name is refused (M019, M020), never read as a default.

use serde::Deserialize;

/// One enum per vocabulary: its variants, their JSON names, and every name in
/// declaration order (for "did you mean" and for messages that list them).
macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)+
        }

        impl $name {
            /// Every name, in upstream's declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text,)+];
            const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value a policy names, spelled exactly.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name() == text)
            }
        }
    };
}

vocabulary! {
    /// What an action can do to the world, directly or through what it starts.
    Effect {
        Read = "READ",
        GraphMutation = "GRAPH_MUTATION",
        RuntimeStoreWrite = "RUNTIME_STORE_WRITE",
        SourceFilesystemWrite = "SOURCE_FILESYSTEM_WRITE",
        HostFilesystemWrite = "HOST_FILESYSTEM_WRITE",
        CoordinationRecord = "COORDINATION_RECORD",
        MissionStateWrite = "MISSION_STATE_WRITE",
        SovereignMutation = "SOVEREIGN_MUTATION",
        ProcessSpawn = "PROCESS_SPAWN",
        ProcessSignal = "PROCESS_SIGNAL",
        ExecutableReplacement = "EXECUTABLE_REPLACEMENT",
        NetworkAccess = "NETWORK_ACCESS",
        NetworkExpose = "NETWORK_EXPOSE",
        FreezeIssuance = "FREEZE_ISSUANCE",
        EpochFence = "EPOCH_FENCE",
        EpochBump = "EPOCH_BUMP",
        RevokeCapability = "REVOKE_CAPABILITY",
        AbortPrepared = "ABORT_PREPARED",
        DemoteGrant = "DEMOTE_GRANT",
        RollbackSignedCandidate = "ROLLBACK_SIGNED_CANDIDATE",
    }
}

vocabulary! {
    /// The least authority that may run an action. Not a ladder: a service
    /// identity is another kind of authority, not more of a person's.
    Floor {
        Ordinary = "ORDINARY",
        ScopedGrantA2 = "SCOPED_GRANT_A2",
        PositiveSovereign = "POSITIVE_SOVEREIGN",
        ServiceIdentity = "SERVICE_IDENTITY",
        SafetyOnly = "SAFETY_ONLY",
    }
}

vocabulary! {
    /// Upstream's risk class of an action; carried, not judged.
    Risk {
        Low = "LOW",
        Medium = "MEDIUM",
        High = "HIGH",
        Critical = "CRITICAL",
    }
}

vocabulary! {
    /// How an action can be reached. Only `MCP` actions need a route.
    Ingress {
        Mcp = "MCP",
        Rest = "REST",
        Cli = "CLI",
        Hook = "HOOK",
        BackgroundJob = "BACKGROUND_JOB",
        Recovery = "RECOVERY",
        Migration = "MIGRATION",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        for name in Effect::NAMES {
            assert_eq!(Effect::parse(name).map(Effect::name), Some(*name));
        }
        assert_eq!(Effect::parse("read"), None, "names are exact, as upstream's JSON spells them");
        assert_eq!(Floor::parse("ORDINARY"), Some(Floor::Ordinary));
        assert_eq!(Floor::NAMES.len(), 5);
    }
}
