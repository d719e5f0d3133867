//! A stdio upstream: the child process as an rmcp client transport, its
//! stdout read through [`Tap`] so that what rmcp's `Tool` drops is still
//! heard (see [`super::declared`]).
//!
//! 1. The child is started with piped stdin and stdout and the gateway's
//!    stderr; it is killed when the transport is dropped.
//! 2. Closing the transport closes the child's stdin, then waits up to
//!    [`EXIT_WAIT`] for it to exit, then sends SIGTERM and waits again, then
//!    kills it (the MCP specification's stdio shutdown, as rmcp's own
//!    `TokioChildProcess` does it).
//! 3. Messages are framed, bounded and parsed by rmcp's `AsyncRwTransport`,
//!    exactly as with `TokioChildProcess`: the tap changes no byte.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::process::{ChildStdin, ChildStdout};

use super::declared::{Declared, Tap};

/// How long a closed upstream may take to exit before it is signalled.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// The child process and rmcp's transport over its stdin and tapped stdout.
pub(super) struct Child {
    process: tokio::process::Child,
    transport: AsyncRwTransport<RoleClient, Tap<ChildStdout>, ChildStdin>,
}

impl Child {
    /// Start `command`; what its listings declare goes to `declared`.
    pub(super) fn spawn(mut command: tokio::process::Command, declared: Arc<Declared>) -> std::io::Result<Self> {
        use std::process::Stdio;
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut process = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err(std::io::Error::other("the upstream's stdin or stdout was not piped"));
        };
        let transport = AsyncRwTransport::new(Tap::new(stdout, declared), stdin);
        Ok(Self { process, transport })
    }

    async fn exited(&mut self) -> bool {
        matches!(tokio::time::timeout(EXIT_WAIT, self.process.wait()).await, Ok(Ok(_)))
    }
}

impl Transport<RoleClient> for Child {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.transport.close().await?;
        if self.exited().await {
            return Ok(());
        }
        #[cfg(unix)]
        if let Some(pid) = self.process.id().and_then(|pid| libc::pid_t::try_from(pid).ok()) {
            // SAFETY: `pid` is this child's, which has not been waited for
            // (it is still running), so the id names no other process.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            if self.exited().await {
                return Ok(());
            }
        }
        self.process.kill().await
    }
}
