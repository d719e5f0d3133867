//! A TCP proxy in front of the test server that cuts the first connection
//! sending a COMMIT, on either side of it, so a commit lost with its
//! connection can be tested against a real server.
//!
//! The store sends COMMIT as a simple query (`Q`, length 11, `COMMIT\0`),
//! which the proxy finds in what the client sends. Every other connection
//! (the new one a lost commit's outcome is asked on) passes untouched.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

/// The simple-query message carrying `COMMIT`.
const COMMIT: &[u8] = b"Q\0\0\0\x0bCOMMIT\0";

/// Where the cut falls.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cut {
    /// The server never gets the COMMIT: the write must not land.
    BeforeCommit,
    /// The server gets the COMMIT, the client never gets its answer: the
    /// write lands, and the client must learn that it did.
    AfterCommit,
}

pub(super) struct CutProxy {
    pub port: u16,
    armed: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
}

impl CutProxy {
    /// A proxy on a loopback port to the server at `upstream` (host:port).
    /// Its threads end with the test process.
    pub fn start(upstream: String, cut: Cut) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("address").port();
        let armed = Arc::new(AtomicBool::new(false));
        let fired = Arc::new(AtomicBool::new(false));
        let (arm, fire) = (armed.clone(), fired.clone());
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(&upstream) else { continue };
                pass(client, server, cut, arm.clone(), fire.clone());
            }
        });
        CutProxy { port, armed, fired }
    }

    /// Cut the next connection that sends a COMMIT.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Whether a connection was cut.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

/// Pump bytes both ways between `client` and `server`, cutting as told.
fn pass(client: TcpStream, server: TcpStream, cut: Cut, armed: Arc<AtomicBool>, fired: Arc<AtomicBool>) {
    let cutting = Arc::new(AtomicBool::new(false));
    let (mut from_client, mut to_server) = (client.try_clone().expect("clone"), server.try_clone().expect("clone"));
    let (up_cutting, up_client) = (cutting.clone(), client.try_clone().expect("clone"));
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n @ 1..) = from_client.read(&mut buf) {
            let chunk = &buf[..n];
            let commit = chunk.windows(COMMIT.len()).any(|w| w == COMMIT);
            if commit && armed.swap(false, Ordering::SeqCst) {
                fired.store(true, Ordering::SeqCst);
                if let Cut::AfterCommit = cut {
                    let _ = to_server.write_all(chunk);
                    up_cutting.store(true, Ordering::SeqCst);
                    let _ = up_client.shutdown(Shutdown::Both);
                    return;
                }
                let _ = up_client.shutdown(Shutdown::Both);
                let _ = to_server.shutdown(Shutdown::Both);
                return;
            }
            if to_server.write_all(chunk).is_err() {
                break;
            }
        }
        let _ = to_server.shutdown(Shutdown::Both);
    });
    let (mut from_server, mut to_client) = (server, client);
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n @ 1..) = from_server.read(&mut buf) {
            // After a cut the server's answer to the COMMIT goes nowhere,
            // and the server's side is closed once it has answered.
            if cutting.load(Ordering::SeqCst) || to_client.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = from_server.shutdown(Shutdown::Both);
        let _ = to_client.shutdown(Shutdown::Both);
    });
}
