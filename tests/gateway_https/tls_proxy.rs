//! An HTTPS front for a plain-HTTP MCP server, on loopback: it terminates
//! TLS with the certificate it is given and copies bytes both ways,
//! recording what the client sent in plaintext (to check which headers
//! reached the upstream). Dropped, it stops.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, ServerConfig};

use super::pki::Leaf;

pub struct TlsProxy {
    pub addr: SocketAddr,
    /// Everything the client sent after the handshake, across connections.
    pub seen: Arc<Mutex<Vec<u8>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl TlsProxy {
    /// Serve TLS with `leaf` on 127.0.0.1, in front of `backend`.
    pub fn start(leaf: Leaf, backend: SocketAddr) -> TlsProxy {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("proxy runtime");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(leaf.chain, leaf.key)
            .expect("server certificate");
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        runtime.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, record) = (acceptor.clone(), Arc::clone(&record));
                tokio::spawn(async move {
                    // A refused handshake ends here: nothing was sent in plaintext.
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let Ok(upstream) = TcpStream::connect(backend).await else { return };
                    relay(tls, upstream, record).await;
                });
            }
        });
        TlsProxy { addr, seen, runtime: Some(runtime) }
    }

    pub fn url(&self) -> String {
        format!("https://{}/mcp", self.addr)
    }

    /// What the client sent, as text.
    pub fn seen_text(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().expect("record")).into_owned()
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn relay(tls: tokio_rustls::server::TlsStream<TcpStream>, upstream: TcpStream, record: Arc<Mutex<Vec<u8>>>) {
    let (mut from_client, mut to_client) = tokio::io::split(tls);
    let (mut from_upstream, mut to_upstream) = upstream.into_split();
    let up = async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from_client.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            record.lock().expect("record").extend_from_slice(&buf[..n]);
            if to_upstream.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = to_upstream.shutdown().await;
    };
    let down = async move {
        let _ = tokio::io::copy(&mut from_upstream, &mut to_client).await;
        let _ = to_client.shutdown().await;
    };
    tokio::join!(up, down);
}
