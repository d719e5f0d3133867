//! m1nd-guard against a real rmcp server (`notes`), driven by rmcp's own
//! client: what is listed, refused, forwarded and attested (`calls`), and the
//! start check of the server's tools against its policy (`start`).

mod calls;
mod notes;
mod start;
