//! Finding the policy, compiling it, and emitting tokens.

use std::path::{Component, Path, PathBuf};

use m1nd_policy::codegen::{Includes, Runtime, compile_error, expand as emit, stub};
use m1nd_policy::gateway::fleet::{self, FLEET_FILE, FleetSources, compile_fleet};
use m1nd_policy::names::did_you_mean;
use m1nd_policy::{PolicyFile, PolicySources, compile, compile_gateway, gateway_codegen};
use proc_macro2::TokenStream;
use syn::LitStr;
use syn::parse::{Parse, ParseStream};

use crate::runtime;

const LITERAL_HELP: &str = "write `cockpit!(\"policy\")`";

const EMPTY_HELP: &str = "write the directory relative to the crate root, e.g. `cockpit!(\"policy\")`";

const ABSOLUTE_HELP: &str = "write it relative to the crate root (CARGO_MANIFEST_DIR), e.g. `cockpit!(\"policy\")`, \
                             so the build does not depend on where the repository is checked out";

/// Which macro is expanding: the two differ only in what they compile and emit.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `cockpit!`: a cockpit policy, emitted as a `Cockpit` table.
    Cockpit,
    /// `gateway!`: a gateway policy, emitted as an embedded `gateway::Embedded`.
    Gateway,
    /// `calls!`: a cockpit policy's argument types, emitted as Rust types.
    Calls,
    /// `fleet!`: a fleet (`fleet.toml` and its members' gateway policies),
    /// emitted as an embedded `gateway::fleet::EmbeddedFleet`.
    Fleet,
}

impl Kind {
    /// The expression or items emitted next to `errors`: correctly typed when
    /// the runtime is known, so the policy's errors are the only ones shown.
    pub fn stub(self, includes: &Includes, errors: TokenStream, runtime: Option<&Runtime>) -> TokenStream {
        match (self, runtime) {
            (Kind::Calls, _) => m1nd_policy::calls_codegen::stub(includes, errors),
            (_, None) => errors,
            (Kind::Cockpit, Some(runtime)) => stub(includes, errors, runtime),
            (Kind::Gateway, Some(runtime)) => gateway_codegen::stub(includes, errors, runtime),
            (Kind::Fleet, Some(runtime)) => gateway_codegen::fleet_stub(includes, errors, runtime),
        }
    }
}

/// What a macro call holds: the policy directory, and optionally the path
/// the runtime is reached through (`crate = path`).
struct Input {
    directory: LitStr,
    runtime: Option<syn::Path>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Input> {
        let directory = input.parse()?;
        let mut runtime = None;
        if input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            input.parse::<syn::Token![crate]>()?;
            input.parse::<syn::Token![=]>()?;
            runtime = Some(input.parse()?);
            input.parse::<Option<syn::Token![,]>>()?;
        }
        Ok(Input { directory, runtime })
    }
}

pub fn expand(input: TokenStream, manifest: Option<PathBuf>, call_file: Option<PathBuf>, kind: Kind) -> TokenStream {
    let parsed = syn::parse2::<Input>(input);
    let explicit =
        parsed.as_ref().ok().and_then(|input| input.runtime.as_ref()).map(|path| Runtime(quote::quote! { #path }));
    let runtime = explicit.or_else(runtime::resolve);
    let stub = |includes: &Includes, errors| kind.stub(includes, errors, runtime.as_ref());
    let lit = match parsed {
        Ok(input) => input.directory,
        Err(e) => {
            let message =
                format!("[M001] cockpit! takes one string literal, the policy directory: {e}\nhelp: {LITERAL_HELP}");
            return stub(&Includes(Vec::new()), compile_error(&message, e.span()));
        }
    };
    let span = lit.span();
    let runtime = match runtime {
        Some(runtime) => runtime,
        None => {
            let message = "[M001] the generated code needs the runtime crate, and Cargo.toml names none";
            return compile_error(&format!("{message}\nhelp: {}", runtime::MISSING_HELP), span);
        }
    };
    expand_found(lit, manifest, call_file, kind, &runtime)
}

/// The expansion once the runtime's path is known.
fn expand_found(
    lit: LitStr,
    manifest: Option<PathBuf>,
    call_file: Option<PathBuf>,
    kind: Kind,
    runtime: &Runtime,
) -> TokenStream {
    let stub = |includes: &Includes, errors| kind.stub(includes, errors, Some(runtime));
    let span = lit.span();
    let written = lit.value();
    let fail = |message: String| stub(&Includes(Vec::new()), compile_error(&message, span));
    if written.trim().is_empty() {
        return fail(format!("[M001] the policy directory is empty\nhelp: {EMPTY_HELP}"));
    }
    if Path::new(&written).is_absolute() {
        return fail(format!("[M001] the policy directory `{written}` is absolute\nhelp: {ABSOLUTE_HELP}"));
    }
    let Some(dir) = locate(&written, manifest.as_deref(), call_file.as_deref()) else {
        let near = nearest_directory(&written, manifest.as_deref(), call_file.as_deref());
        let help = did_you_mean(near.as_deref(), "", || {
            let files: Vec<&str> = PolicyFile::ALL.iter().map(|f| f.file_name()).collect();
            format!("create it next to Cargo.toml with {}, or correct the path", files.join(", "))
        });
        return fail(format!("[M001] the policy directory `{written}` does not exist\nhelp: {help}"));
    };
    let display = written.trim_end_matches('/');
    let sources = PolicySources::read_dir(&dir, display);
    let includes = includes(&dir, call_file.as_deref());
    let compiled = match kind {
        Kind::Cockpit => compile(&sources).map(|cockpit| emit(&cockpit, &includes, runtime)),
        Kind::Calls => compile(&sources).map(|cockpit| m1nd_policy::calls_codegen::items(&cockpit, &includes, runtime)),
        Kind::Gateway => {
            compile_gateway(&sources).map(|_| gateway_codegen::embedded(&sources, display, &includes, runtime))
        }
        // A fleet is read as a fleet, not as one policy.
        Kind::Fleet => return expand_fleet(&dir, display, call_file.as_deref(), span, runtime),
    };
    match compiled {
        Ok(tokens) => tokens,
        Err(problems) => {
            let errors: TokenStream = problems.iter().map(|d| compile_error(&d.render(&sources), span)).collect();
            stub(&includes, errors)
        }
    }
}

/// `fleet!`: compile the fleet in `dir` (M001 on `fleet.toml`, every law on
/// each member, M017 across them) and embed it, or emit every problem.
fn expand_fleet(
    dir: &Path,
    display: &str,
    call_file: Option<&Path>,
    span: proc_macro2::Span,
    runtime: &Runtime,
) -> TokenStream {
    let sources = FleetSources::read_dir(dir, display);
    let mut files = vec![dir.join(FLEET_FILE)];
    if let Ok(Ok(entries)) = sources.config().map(fleet::config::parse) {
        for entry in entries {
            files.extend(PolicyFile::EVERY.iter().map(|f| dir.join(&entry.policy).join(f.file_name())));
        }
    }
    let includes = tracked(files, call_file);
    match compile_fleet(&sources) {
        Ok(_) => gateway_codegen::embedded_fleet(&sources, &includes, runtime),
        Err(problems) => {
            let errors: TokenStream = problems.iter().map(|p| compile_error(&p.render(&sources), span)).collect();
            gateway_codegen::fleet_stub(&includes, errors, runtime)
        }
    }
}

/// The policy directory: under the crate root, else under the package that
/// holds the calling file (trybuild compiles cases from a manifest copy).
fn locate(written: &str, manifest: Option<&Path>, call_file: Option<&Path>) -> Option<PathBuf> {
    let from_manifest = manifest.map(|m| m.join(written));
    let from_package = call_file.and_then(package_root).map(|root| root.join(written));
    [from_manifest, from_package].into_iter().flatten().find(|dir| dir.is_dir())
}

/// A sibling directory whose name is a near miss of the one written.
fn nearest_directory(written: &str, manifest: Option<&Path>, call_file: Option<&Path>) -> Option<String> {
    let written_path = Path::new(written);
    let name = written_path.file_name()?.to_str()?;
    let parent = written_path.parent().unwrap_or(Path::new(""));
    let roots = [manifest.map(Path::to_path_buf), call_file.and_then(package_root)];
    let siblings: Vec<String> = roots
        .into_iter()
        .flatten()
        .filter_map(|root| std::fs::read_dir(root.join(parent)).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    let best = m1nd_policy::names::suggest(name, siblings.iter().map(String::as_str))?;
    Some(parent.join(best).to_string_lossy().into_owned())
}

/// The nearest ancestor of `file` holding a Cargo.toml.
fn package_root(file: &Path) -> Option<PathBuf> {
    let file = std::fs::canonicalize(file).ok()?;
    file.ancestors().skip(1).find(|dir| dir.join("Cargo.toml").is_file()).map(Path::to_path_buf)
}

/// `include_bytes!` paths for the files that exist, relative to the calling
/// file when it is known (so expansions do not embed a checkout's location).
fn includes(dir: &Path, call_file: Option<&Path>) -> Includes {
    tracked(PolicyFile::EVERY.iter().map(|f| dir.join(f.file_name())).collect(), call_file)
}

/// `include_bytes!` paths for those of `files` that exist.
fn tracked(files: Vec<PathBuf>, call_file: Option<&Path>) -> Includes {
    let base = call_file.and_then(|f| std::fs::canonicalize(f).ok()).and_then(|f| f.parent().map(Path::to_path_buf));
    let paths = files
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .map(|p| match &base {
            Some(base) => relative(base, &p).unwrap_or(p),
            None => p,
        })
        .filter_map(|p| p.to_str().map(str::to_owned))
        .collect();
    Includes(paths)
}

/// `to` relative to the directory `from`, both absolute.
fn relative(from: &Path, to: &Path) -> Option<PathBuf> {
    let from: Vec<Component<'_>> = from.components().collect();
    let to_parts: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to_parts[common..] {
        out.push(part.as_os_str());
    }
    Some(out)
}
