//! `--http ADDR`: the guarded server on Streamable HTTP, at `/mcp`.
//!
//! rmcp's Streamable HTTP service makes one handler per session from a
//! factory; each is a clone of the same [`Guarded`], so every session shares
//! the policy's state and the notes. hyper serves the service, one task per
//! connection, with no web framework.
//!
//! A client ends its session with `DELETE /mcp`. rmcp answers 202, which the
//! specification allows and the official Python SDK reports as a failed
//! termination; it is answered 200 instead, as `m1nd serve --http` does.

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::service::{Service, service_fn};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use m1nd_guard::Guarded;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::notes::Notes;

/// Serve `guarded` on `addr` until the process is stopped (Ctrl-C ends it).
pub async fn serve(guarded: Guarded<Notes>, addr: &str) -> Result<(), String> {
    let listener = TcpListener::bind(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| format!("{addr}: {e}"))?;
    let service = StreamableHttpService::new(
        move || Ok(guarded.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    // The line a launcher waits for: the address, with the port the system chose for `:0`.
    eprintln!("rmcp-guarded: serving MCP on http://{bound}/mcp");
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let (stream, _) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("rmcp-guarded: accept failed: {e}");
                continue;
            }
        };
        let rmcp = TowerToHyperService::new(service.clone());
        let answered = service_fn(move |request: Request<Incoming>| {
            let closing = request.method() == Method::DELETE;
            let answer = rmcp.call(request);
            async move {
                let mut response = answer.await?;
                if closing && response.status() == StatusCode::ACCEPTED {
                    *response.status_mut() = StatusCode::OK;
                }
                Ok::<_, std::convert::Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), answered).await;
        });
    }
}
