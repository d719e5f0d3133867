//! The smallest useful rmcp server: one tool, on stdio or (with `--http ADDR`)
//! on Streamable HTTP at `/mcp`. It holds no policy and no store; it exists so
//! that `scripts/binary-size.sh` can say how much larger than this the gateway
//! and the full `m1nd` are, both built with the same release profile.

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::schemars::{self, JsonSchema};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

#[derive(Clone)]
struct Echo;

#[tool_router]
impl Echo {
    #[tool(description = "Returns its text.", annotations(read_only_hint = true))]
    fn echo(&self, Parameters(Text { text }): Parameters<Text>) -> String {
        text
    }
}

#[tool_handler]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("minimal-rmcp", env!("CARGO_PKG_VERSION")))
    }
}

fn main() -> Result<(), String> {
    let http = std::env::args().skip_while(|a| a != "--http").nth(1);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        match http {
            Some(addr) => serve_http(&addr).await,
            None => {
                let running = Echo.serve(rmcp::transport::stdio()).await.map_err(|e| e.to_string())?;
                running.waiting().await.map(|_| ()).map_err(|e| e.to_string())
            }
        }
    })
}

/// Accept connections on `addr` for ever, one task each.
async fn serve_http(addr: &str) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
    let service = StreamableHttpService::new(
        || Ok(Echo),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
