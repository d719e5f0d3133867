//! `m1nd serve`: MCP over stdio, or over Streamable HTTP with `--http`.

use clap::Args;

use super::audit::AuditArgs;
use super::flags::{at_least_one, positive_seconds};
use super::http::HttpArgs;
use super::read_only::{READ_ONLY_ENV, read_only_from_env};
use super::{Failure, StoreArg};
use m1nd::mcp::Server;
use m1nd::mcp::attestation;
use m1nd::service::{Options, QueueCaps, Service};
use m1nd::store::{Location, Store};
use m1nd::transport::http;
use m1nd::transport::http::human::streams::StreamCaps;
use m1nd::transport::stdio;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Refuse every verb that writes (also: M1ND_READ_ONLY=1 or true).
    #[arg(long)]
    read_only: bool,
    #[command(flatten)]
    store: StoreArg,
    /// Refuse to start unless the compiled-in policy has this digest (`m1nd policy digest`).
    #[arg(long, value_name = "HEX")]
    expect_digest: Option<String>,
    #[command(flatten)]
    audit: AuditArgs,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    load: LoadArgs,
    /// Seconds a tray session lasts after its login link is opened.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = http::human::authority::DEFAULT_SESSION.as_secs_f64())]
    tray_session: f64,
    /// Tray event streams (`/tray/events`) open at once; past it one more gets 503.
    #[arg(long, value_name = "N", requires = "http", default_value_t = http::human::streams::DEFAULT_MAX_EVENT_STREAMS)]
    max_event_streams: usize,
    /// Seconds a tray event stream lasts before the page reconnects.
    #[arg(long, value_name = "SECONDS", requires = "http", default_value_t = http::human::streams::DEFAULT_EVENT_STREAM_LIFETIME.as_secs_f64())]
    event_stream_lifetime: f64,
}

impl ServeArgs {
    /// The tray's event streams' cap and lifetime.
    fn event_streams(&self) -> Result<StreamCaps, Failure> {
        Ok(StreamCaps {
            max: at_least_one(self.max_event_streams, "--max-event-streams")?,
            lifetime: positive_seconds(self.event_stream_lifetime, "--event-stream-lifetime")?,
        })
    }
}

/// How much work the server takes on at once, and for how long.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Reader threads, each with a connection of its own (reads run in parallel).
    #[arg(long, value_name = "N", default_value_t = m1nd::service::default_readers())]
    readers: usize,
    /// Reads that may wait at once, from all clients together; past it a call is refused.
    #[arg(long, value_name = "N", default_value_t = QueueCaps::default().total)]
    max_queued: usize,
    /// Reads that one client (a stdio session, an HTTP connection) may have waiting.
    #[arg(long, value_name = "N", default_value_t = QueueCaps::default().per_lane)]
    max_queued_per_client: usize,
    /// Seconds a read may take, waiting included; past it, it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = m1nd::service::DEFAULT_CALL_BUDGET.as_secs_f64())]
    call_budget: f64,
}

impl LoadArgs {
    /// The service's options for `store`, read-only or not.
    fn options(&self, store: Location, read_only: bool) -> Result<Options, Failure> {
        for (flag, n) in [
            ("--readers", self.readers),
            ("--max-queued", self.max_queued),
            ("--max-queued-per-client", self.max_queued_per_client),
        ] {
            if n == 0 {
                return Err(Failure::usage(format!("{flag} must be at least 1")));
            }
        }
        Ok(Options {
            readers: self.readers,
            queue: QueueCaps { per_lane: self.max_queued_per_client, total: self.max_queued },
            call_budget: positive_seconds(self.call_budget, "--call-budget")?,
            ..Options::new(store).read_only(read_only)
        })
    }
}

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    if let Some(pin) = &args.expect_digest {
        attestation::check_pin(pin)?;
    }
    let from_env = read_only_from_env(std::env::var_os(READ_ONLY_ENV))?;
    let event_streams = args.event_streams()?;
    let read_only = args.read_only || from_env;
    let at = args.store.location();
    check_store(at)?;
    let options = args.load.options(at.clone(), read_only)?;
    let http = args.http.options()?;
    // Opened last of the checks, so a refused start leaves no new file behind.
    let options = Options { audit: args.audit.open()?, ..options };
    let service = Service::start(options).map_err(|e| Failure::usage(e.to_string()))?;
    let served = match http {
        None => stdio::run(Server::new(service)),
        Some(mut http) => {
            http.session_lifetime = positive_seconds(args.tray_session, "--tray-session")?;
            http.event_streams = event_streams;
            http::run(service, http)
        }
    };
    served.map_err(|e| Failure::usage(e.to_string()))
}

/// A server starts only if its store opens now, before it answers a
/// client's `initialize`: a missing store, a path that is a file, a
/// directory this user may not read, an unreachable database, a wrong
/// password, a database without a store or with a newer one are refused at
/// start (exit 2), naming the path and what to run, not at the first call of
/// a client that started m1nd in a directory nobody chose.
/// A clock that disagrees with the database's is worth a warning, not a
/// refusal: writes record the database's time.
fn check_store(at: &Location) -> Result<(), Failure> {
    if let Location::Dir(dir) = at {
        super::check_store_dir(dir)?;
    }
    let store = Store::open_at(at).map_err(|e| Failure::usage(e.to_string()))?;
    if let Ok(Some(skew)) = store.clock_skew_millis()
        && let Some(warning) = clock_warning(skew)
    {
        eprintln!("m1nd: warning: {warning}");
    }
    Ok(())
}

/// How far apart the clocks may be before a replica says so.
const CLOCK_TOLERANCE_MILLIS: i64 = 2_000;

/// The warning for a clock `skew` milliseconds ahead of the database's.
fn clock_warning(skew: i64) -> Option<String> {
    if skew.abs() <= CLOCK_TOLERANCE_MILLIS {
        return None;
    }
    let (seconds, way) = (skew.unsigned_abs() / 1000, if skew > 0 { "ahead of" } else { "behind" });
    Some(format!(
        "this machine's clock is {seconds} s {way} the database's; writes record the database's time, so their \
         order holds, but this server's logs and timeouts use its own clock: set it right (NTP)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_past_the_tolerance_is_named_with_its_direction() {
        assert_eq!(clock_warning(0), None);
        assert_eq!(clock_warning(-CLOCK_TOLERANCE_MILLIS), None);
        let behind = clock_warning(-400 * 86_400_000).expect("warned");
        assert!(behind.contains("34560000 s behind the database's"), "{behind}");
        assert!(clock_warning(2_001).expect("warned").contains("2 s ahead of"));
    }

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn tray_stream_caps_of_zero_are_refused_naming_their_flag() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["serve", "--http", "127.0.0.1:0"].iter().chain(args)).expect("parses").serve
        };
        for flag in ["--max-event-streams", "--event-stream-lifetime"] {
            let refused = parse(&[flag, "0"]).event_streams().expect_err("refused");
            assert!(refused.message.contains(flag), "{}", refused.message);
        }
        assert_eq!(parse(&[]).event_streams().ok(), Some(StreamCaps::default()));
    }

    #[test]
    fn read_only_does_not_take_the_address() {
        use clap::Parser;
        let serve = Cli::try_parse_from(["serve", "--http", "--read-only"]).expect("parses").serve;
        assert!(serve.read_only);
        assert_eq!(
            serve.http.options().ok().flatten().map(|h| h.addr),
            Some(http::DEFAULT_ADDR.parse().expect("addr"))
        );
    }
}
