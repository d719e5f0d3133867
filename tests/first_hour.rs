//! What a new user meets in the first hour, through the real binary:
//!
//! 1. Every command the CLI suggests works the way the binary was started:
//!    installed on `PATH` it is `m1nd …` (and pasting it works), under
//!    `cargo run` it is `cargo run -- …` (with `--manifest-path` elsewhere).
//! 2. Advice is honest: `store import` of a missing file says what it reads,
//!    not "run m1nd init"; the CLI's door to `/tray` says the tray is a page
//!    of `serve --http`.
//! 3. `--help` says what a person needs: `serve`'s default address, and that
//!    `gateway` serves HTTP as well as stdio.
//! 4. `serve --http localhost:PORT` works and listens on loopback.
//! 5. A browser that has not logged in gets a page saying how to, while a
//!    JSON client keeps the 401 JSON.

mod server_support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use server_support::http::{Era, HttpMcp, HttpServer};
use server_support::{BIN, as_a_client_starts_it, demo_store, temp_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(out: &Output) -> String {
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// The `next:` line of an output.
fn next_line(stdout: &str) -> &str {
    stdout.lines().find_map(|l| l.strip_prefix("next: ")).unwrap_or_else(|| panic!("no `next:` line in {stdout}"))
}

/// A directory holding only `m1nd` (a link to the binary), for `PATH`.
fn installed_bin(dir: &Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).expect("bin dir");
    std::os::unix::fs::symlink(BIN, bin.join("m1nd")).expect("link m1nd");
    let mut path = bin.into_os_string();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

#[test]
fn installed_the_next_hint_is_m1nd_and_pasting_it_works() {
    let dir = temp_dir("hint-installed");
    let path = installed_bin(dir.path());
    let run = |argv: &[&str]| {
        as_a_client_starts_it(&mut Command::new(argv[0]))
            .args(&argv[1..])
            .env("PATH", &path)
            .current_dir(dir.path())
            .output()
            .expect("run m1nd from PATH")
    };
    let init = succeeded(&run(&["m1nd", "init", "--demo", "--store", "my store"]));
    let next = next_line(&init);
    assert_eq!(next, "m1nd cockpit --store 'my store'");
    // Pasted into a shell: the words a shell would pass.
    let card = succeeded(&run(&["m1nd", "cockpit", "--store", "my store"]));
    assert!(card.starts_with("m1nd cockpit"), "{card}");

    let missing = run(&["m1nd", "cockpit", "--store", "nowhere"]);
    let create = format!("`m1nd init --demo --store {}`", dir.path().join("nowhere").display());
    assert!(text(&missing.stderr).contains(&create), "{}", text(&missing.stderr));
}

#[test]
fn under_cargo_run_the_next_hint_is_cargo_run() {
    let dir = temp_dir("hint-cargo");
    let store = dir.path().join("store");
    // What `cargo run` sets for the binary it runs.
    let cargo_run = |cwd: &Path, args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("CARGO", "/usr/bin/cargo")
            .env("CARGO_PKG_NAME", "m1nd")
            .env("CARGO_MANIFEST_DIR", ROOT)
            .current_dir(cwd)
            .output()
            .expect("run m1nd")
    };
    let store_arg = store.to_str().expect("utf-8");
    let init = succeeded(&cargo_run(Path::new(ROOT), &["init", "--demo", "--store", store_arg]));
    assert_eq!(next_line(&init), format!("cargo run -- cockpit --store {store_arg}"));

    let elsewhere = cargo_run(dir.path(), &["cockpit", "--store", "nowhere"]);
    let manifest = Path::new(ROOT).join("Cargo.toml");
    let expected = format!(
        "`cargo run --manifest-path {} -- init --demo --store {}`",
        manifest.display(),
        dir.path().join("nowhere").display()
    );
    assert!(text(&elsewhere.stderr).contains(&expected), "{}", text(&elsewhere.stderr));
}

#[test]
fn the_clis_door_to_the_tray_says_it_needs_serve_http() {
    let (_dir, store) = demo_store("door-note");
    // (stdout, stderr) of `m1nd cockpit ARGS --store STORE`.
    let cockpit = |args: &[&str]| {
        let out = as_a_client_starts_it(&mut Command::new(BIN))
            .arg("cockpit")
            .args(args)
            .arg("--store")
            .arg(&store)
            .output()
            .expect("cockpit");
        (succeeded(&out), text(&out.stderr))
    };
    let (door, said) = cockpit(&["1"]);
    assert!(door.contains("→ /tray"), "slot 1 is the tray's door: {door}");
    assert!(!door.contains("note:"), "stdout is the card an MCP client gets, nothing more: {door}");
    let note = said.lines().find_map(|l| l.strip_prefix("note: ")).unwrap_or_else(|| panic!("no note: {said}"));
    let serve = format!("{BIN} serve --http --store {}", store.display());
    assert!(note.starts_with("/tray is a page of the HTTP server") && note.contains(&format!("`{serve}`")), "{note}");
    assert!(!cockpit(&[]).1.contains("note:"), "the root has no door, so no note");
    let (json, _) = cockpit(&["1", "--json"]);
    let json: Value = serde_json::from_str(&json).expect("the JSON view stays JSON");
    assert_eq!(json["door_link"], "/tray");
}

#[test]
fn store_import_of_a_missing_file_says_what_it_reads() {
    let dir = temp_dir("import-missing");
    let run = |file: &str| {
        as_a_client_starts_it(&mut Command::new(BIN))
            .args(["store", "import", file, "--store", "store"])
            .current_dir(dir.path())
            .output()
            .expect("store import")
    };
    let missing = run("old/state.json");
    assert_eq!(missing.status.code(), Some(2));
    let said = text(&missing.stderr);
    assert!(said.contains("no file at old/state.json") && said.contains("state.json"), "{said}");
    assert!(said.contains("nothing was created") && !said.contains("init"), "{said}");
    assert!(!dir.path().join("store").exists(), "a failed import created the store");

    let init = as_a_client_starts_it(&mut Command::new(BIN))
        .args(["init", "--store", "store"])
        .current_dir(dir.path())
        .output()
        .expect("init");
    succeeded(&init);
    let already = text(&run("state.json").stderr);
    assert!(already.contains("is already a SQLite store: there is nothing to import"), "{already}");
}

#[test]
fn help_names_the_default_address_and_the_gateways_transports() {
    let help = |args: &[&str]| succeeded(&Command::new(BIN).args(args).output().expect("help"));
    let serve = help(&["serve", "--help"]);
    let default = m1nd::transport::http::DEFAULT_ADDR;
    assert!(serve.contains(&format!("[ADDR defaults to {default}]")), "{serve}");
    for gateway in [help(&["gateway", "--help"]), help(&["--help"])] {
        assert!(!gateway.contains("(over stdio)"), "{gateway}");
    }
    let listed = help(&["--help"]);
    let line = listed.lines().find(|l| l.trim_start().starts_with("gateway")).expect("gateway is listed");
    assert!(line.contains("stdio") && line.contains("HTTP"), "{line}");
}

#[test]
fn serve_http_takes_a_host_name_and_stays_on_loopback() {
    let (_dir, store) = demo_store("http-localhost");
    let server = HttpServer::try_start(&store, "localhost:0", &[], &[]).expect("localhost:0 is an address");
    assert!(server.addr.ip().is_loopback(), "{}", server.addr);
    let mut mcp = HttpMcp::over(server, Era::Session, Vec::new());
    assert!(mcp.tools().iter().any(|t| t["name"] == "cockpit"));

    let bare = Command::new(BIN).args(["serve", "--http", "1338", "--store"]).arg(&store).output().expect("run");
    assert_eq!(bare.status.code(), Some(2));
    assert!(text(&bare.stderr).contains("127.0.0.1:1338"), "{}", text(&bare.stderr));
}

/// `GET PATH` on `host` with `Accept`, no cookie.
fn get(server: &HttpServer, host: &str, path: &str, accept: &str) -> server_support::http::Reply {
    server.get(host, path, &[("Accept", accept)])
}

#[test]
fn a_browser_that_has_not_logged_in_gets_a_page_saying_how() {
    let (_dir, store) = demo_store("login-page");
    let server = HttpServer::start(&store, &[], &[]);
    // The tray's own host, as the login link names it.
    let link = server.login_link();
    let host = link.trim_start_matches("http://").split('/').next().expect("a host").to_owned();
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for path in ["/", "/tray", "/?select=2", "/login?token=not-a-token"] {
        let page = get(&server, &host, path, browser);
        assert_eq!(page.status, 401, "{path}");
        assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")), "{path}: {:?}", page.headers);
        let html = page.text();
        assert!(html.contains("/login?token=") && html.contains("serve --http"), "{path}: {html}");
        assert!(!html.contains("<script"), "the login page runs nothing");
        assert!(page.header("content-security-policy").is_some(), "{path}: served with the pages' CSP");

        let json = get(&server, &host, path, "application/json");
        assert_eq!(json.status, 401, "{path}");
        let answer: Value = serde_json::from_slice(&json.body).expect("a JSON client keeps JSON");
        assert_eq!(answer["code"], "login", "{path}: {answer}");
    }
    // A JSON answer that is not about a page stays JSON for a browser too.
    let state = get(&server, &host, "/tray/state.json", browser);
    assert_eq!(state.status, 401);
    assert!(serde_json::from_slice::<Value>(&state.body).is_ok(), "{}", state.text());
}
