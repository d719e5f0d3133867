//! PostgreSQL, the store's second backend (docs/design/postgres-replicas.md).
//!
//! What talks to the server (a connection, TLS, the DDL each migration step
//! becomes) is `pg_wire`, below the backend-neutral modules that hold a
//! connection (`db`, `reads`, `schema`); this module is above them, since
//! making, opening and writing a store runs their code on PostgreSQL:
//!
//! - [`open`]: making a store in a database (the loader, and the word
//!   index counted by [`terms`]), and opening one, refusing a newer schema.
//!
//! - [`write`]: the write frame, where replicas take turns on the store
//!   row and a commit lost with its connection is resolved;
//! - [`listen`]: hearing the commits of other replicas (`LISTEN/NOTIFY`).

#[cfg(test)]
mod backup_tests;
#[cfg(test)]
mod cut_proxy;
pub(super) mod listen;
pub(super) mod open;
#[cfg(test)]
mod outage_tests;
#[cfg(test)]
mod scratch;
#[cfg(test)]
mod store_tests;
pub(super) mod terms;
#[cfg(test)]
mod test_server;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tls_tests;
pub(super) mod write;
#[cfg(test)]
mod write_tests;
