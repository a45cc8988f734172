//! The `urchin` command line: the REPL, running entry points, checking,
//! showing elaborated and core programs, and running test blocks.

use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use urchin::driver::Session;
use urchin::host::Host;
use urchin_base::diag::{Diagnostic, Phase};
use urchin_runtime::values::{format_value, format_value_futhark, read_values};
use urchin_types::env::DefId;

/// Counts the bytes the process holds, so that `--max-memory` limits the
/// whole process (see `urchin_base::mem`).
#[global_allocator]
static ALLOC: urchin_base::mem::Counting = urchin_base::mem::Counting;

#[derive(Parser)]
#[command(
    name = "urchin",
    version,
    about = "An interactive interpreter for a Futhark-like array language with AUTOMAP and tape-free AD"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The OpenCL device SOAC statements are offloaded to: `auto` (a GPU
    /// over a CPU driver, when the work pays), `none`, or a device's name
    /// or `PLATFORM:DEVICE` index (default: `$URCHIN_DEVICE`, else `auto`).
    #[arg(long, global = true, value_name = "auto|none|NAME")]
    device: Option<String>,
    /// Threads for the evaluator's element-wise work (default:
    /// `$URCHIN_THREADS`, else every core); results do not depend on it.
    /// With `bench`, each dataset runs on one thread and on N, and the
    /// table shows the speed-up.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// The most memory arrays may take: bytes, a number with K, M, G or T,
    /// or a percentage of physical memory (default: 50%). An allocation
    /// past it is a run-time error, and the REPL goes on.
    #[arg(long, global = true, value_name = "SIZE", value_parser = urchin_base::mem::parse_size)]
    max_memory: Option<usize>,
}

#[derive(Subcommand)]
enum Command {
    /// Start the REPL, optionally loading a file.
    Repl { file: Option<PathBuf> },
    /// Run an entry point; arguments are values on the command line, or on
    /// standard input if none are given (text or Futhark's binary format,
    /// told apart per value as Futhark does).
    Run {
        file: PathBuf,
        /// The entry point to run.
        #[arg(short, long, default_value = "main")]
        entry: String,
        /// Print the results in Futhark's binary data format.
        #[arg(short, long)]
        binary_output: bool,
        /// Negative numbers need no `--` (`urchin run f.fut -1 -2.5`).
        #[arg(allow_negative_numbers = true)]
        values: Vec<String>,
    },
    /// Type-check a program and print the type of each definition.
    Check {
        file: PathBuf,
        /// Also print AUTOMAP's figures per definition: applications, how
        /// many were solved locally, and the ILP's size and solve time.
        #[arg(long)]
        stats: bool,
        /// Send every application to the ILP instead of solving what can
        /// be solved on the spot (to see what local solving saves).
        #[arg(long)]
        no_local_solving: bool,
    },
    /// Print the program with every implicit `map` and `rep` made explicit.
    Elab { file: PathBuf },
    /// Print the core IR an entry point lowers to.
    Core {
        file: PathBuf,
        /// The entry point (default: all entry points).
        #[arg(short, long)]
        entry: Option<String>,
        /// Show the code before simplification.
        #[arg(long)]
        no_simplify: bool,
        /// Show the code each time this pass has run instead (`lowering`,
        /// `ad`, or one of the simplifier's: `forward`, `share`, `fuse`,
        /// `dce`, `interchange`, `onehot`, `contract`, `merge`).
        #[arg(long, value_name = "PASS", value_parser = clap::builder::PossibleValuesParser::new(urchin_opt::passes::names()), conflicts_with = "no_simplify")]
        after: Option<String>,
    },
    /// Show the reduction sequence of an entry point under the reference
    /// small-step semantics.
    Step {
        file: PathBuf,
        /// The entry point to run.
        #[arg(short, long, default_value = "main")]
        entry: String,
        /// Show at most this many steps (the rest are counted).
        #[arg(short = 'n', long, default_value_t = 50)]
        limit: u64,
        /// Print only the number of steps and the result.
        #[arg(long)]
        count: bool,
        /// Negative numbers need no `--`.
        #[arg(allow_negative_numbers = true)]
        values: Vec<String>,
    },
    /// Run the test blocks of every `.fut` file under the given paths.
    Test {
        paths: Vec<PathBuf>,
        /// The evaluator: `fast`, or `small-step` (the reference
        /// semantics).
        #[arg(long, default_value = "fast")]
        engine: String,
        /// Also run cases marked `compiled`.
        #[arg(long)]
        compiled: bool,
        /// Print a line for every case.
        #[arg(short, long)]
        verbose: bool,
        /// Fail a case that runs longer than this many seconds (the run
        /// goes on with the next).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
    },
    /// Turn a program with prose in its comments and `-- >` directives into
    /// a Markdown document (as `futhark literate` does).
    Literate {
        program: PathBuf,
        /// The Markdown file (default: the program with `.md`); images go
        /// in a directory beside it named after it with `-img`.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Stop at the first failing directive, without writing anything.
        #[arg(long)]
        stop_on_error: bool,
        /// Print each directive on standard error as it runs.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Serve a program over Futhark's server protocol on standard input
    /// and output (for the `futhark-server` Python package and other
    /// clients of Futhark's server executables).
    Server { program: PathBuf },
    /// A Language Server Protocol server on standard input and output,
    /// for editors: diagnostics, hover types, go to definition,
    /// completion, and AUTOMAP's maps as inlay hints.
    Lsp,
    /// The Jupyter kernel: `install` makes it known to Jupyter.
    Jupyter {
        #[command(subcommand)]
        action: Jupyter,
    },
    /// Time every entry point on every dataset of the test blocks of the
    /// `.fut` files under the given paths.
    Bench {
        paths: Vec<PathBuf>,
        /// Timed runs per dataset, after one warm-up run.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Benchmark only this entry point.
        #[arg(short, long)]
        entry: Option<String>,
        /// Print the measurements as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum Jupyter {
    /// Write the kernelspec, so that Jupyter offers urchin as a kernel.
    Install {
        /// Install under PREFIX/share/jupyter/kernels (a virtual
        /// environment's prefix, say) instead of the user's Jupyter data
        /// directory.
        #[arg(long)]
        prefix: Option<PathBuf>,
    },
    /// Run the kernel (Jupyter starts this, with a connection file).
    Kernel { connection_file: PathBuf },
}

fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// What a command returns: its exit code, or an error without a source
/// location (reported in the diagnostics' style, with exit code 1).
type Result<T> = std::result::Result<T, Box<Diagnostic>>;

fn fail(message: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::new(Phase::Other, message))
}

fn read(path: &PathBuf, host: &Host) -> Result<String> {
    urchin_base::source::read_source(path, host.memory)
        .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))
}

/// `file` has no definition `name`: the error lists the entry points it has.
fn no_entry(s: &Session, ids: &[DefId], file: &std::path::Path, name: &str) -> Diagnostic {
    let entries: Vec<String> = ids
        .iter()
        .map(|id| s.def(*id))
        .filter(|d| d.entry)
        .map(|d| format!("`{}`", d.name))
        .collect();
    let d = Diagnostic::new(
        Phase::Other,
        format!("{} has no entry point named `{name}`", file.display()),
    );
    if entries.is_empty() {
        d.with_help("it has no entry points; declare one with `entry`")
    } else {
        d.with_help(format!(
            "its entry points are {}; choose one with `-e NAME`",
            entries.join(", ")
        ))
    }
}

/// Loads a file into a fresh session, printing diagnostics on failure.
fn load(path: &PathBuf, host: &Host) -> Result<Option<(Session, Vec<DefId>)>> {
    load_with(path, Session::with_host(host.clone()))
}

/// Loads a file and finds its entry point `entry` (`None`: the file did
/// not load, and the diagnostics are shown).
fn load_entry(path: &PathBuf, entry: &str, host: &Host) -> Result<Option<(Session, DefId)>> {
    let Some((s, ids)) = load(path, host)? else {
        return Ok(None);
    };
    match s.lookup_def(entry) {
        Some(id) => Ok(Some((s, id))),
        None => Err(no_entry(&s, &ids, path, entry).into()),
    }
}

/// Loads a file into the given session (a fresh one, possibly configured).
fn load_with(path: &PathBuf, mut s: Session) -> Result<Option<(Session, Vec<DefId>)>> {
    let text = read(path, s.host())?;
    match s.load_path(path, &text) {
        Ok(ids) => Ok(Some((s, ids))),
        Err(diags) => {
            eprint!(
                "{}",
                urchin_base::diag::render_all(&diags, &s.sources, color())
            );
            Ok(None)
        }
    }
}

fn main() -> ExitCode {
    urchin_base::mem::retain_freed_memory();
    let cli = Cli::parse_from(negative_values_as_values(std::env::args_os()));
    match command(cli) {
        Ok(code) => code,
        Err(d) => {
            eprint!(
                "{}",
                d.render(&urchin_base::source::SourceMap::new(), color())
            );
            ExitCode::FAILURE
        }
    }
}

/// The command line with each negative value of `run` and `step` that
/// clap would take for a flag (`-1i64`, `-2.5f32`, `-f64.inf`: clap
/// accepts only plain numbers) written with a leading space, which makes
/// it a positional argument; the values are read as one text, where the
/// space is nothing.
fn negative_values_as_values(
    args: impl Iterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    fn is_negative_value(a: &str) -> bool {
        let Some(rest) = a.strip_prefix('-') else {
            return false;
        };
        rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            || ["f16.", "f32.", "f64.", "inf", "nan"]
                .iter()
                .any(|p| rest.starts_with(p))
    }
    let mut in_values = false;
    args.map(|a| match a.to_str() {
        Some("run" | "step") if !in_values => {
            in_values = true;
            a
        }
        Some(s) if in_values && is_negative_value(s) => format!(" {s}").into(),
        _ => a,
    })
    .collect()
}

fn command(mut cli: Cli) -> Result<ExitCode> {
    let mut host = Host::default();
    if let Some(n) = cli.threads {
        let max = urchin_eval::threads::max_threads();
        if n as usize > max {
            eprintln!(
                "warning: --threads {n} is more than {} per core, which only slows the evaluator \
                 down (this machine has {} cores); using {max}",
                urchin_eval::threads::MAX_PER_CORE,
                urchin_eval::threads::cores()
            );
            cli.threads = Some(max as u32);
        }
        host.set_threads(n.min(max as u32) as usize);
    }
    if let Some(bytes) = cli.max_memory {
        host.memory = urchin_base::mem::Budget::new(bytes);
    }
    if !matches!(
        cli.command,
        None | Some(Command::Repl { .. } | Command::Jupyter { .. })
    ) {
        end_quietly_on_broken_pipe();
    }
    match &cli.device {
        Some(d) => host.devices.configure(urchin_gpu::Choice::parse(d)),
        None if std::env::var_os("URCHIN_DEVICE").is_none() => {
            host.devices.configure(urchin_gpu::Choice::Auto)
        }
        None => {}
    }
    match cli.command {
        None => Ok(urchin::repl::run(None, host)),
        Some(Command::Repl { file }) => {
            // A file that cannot be read ends the session before it starts
            // (a file with errors is reported at the prompt, which goes on).
            if let Some(f) = &file {
                read(f, &host)?;
            }
            Ok(urchin::repl::run(file, host))
        }
        Some(Command::Run {
            file,
            entry,
            binary_output,
            values,
        }) => run(&file, &entry, binary_output, values, &host),
        Some(Command::Check {
            file,
            stats,
            no_local_solving,
        }) => check(&file, stats, !no_local_solving, &host),
        Some(Command::Elab { file }) => elab(&file, &host),
        Some(Command::Core {
            file,
            entry,
            no_simplify,
            after,
        }) => core(&file, entry, !no_simplify, after.as_deref(), &host),
        Some(Command::Step {
            file,
            entry,
            limit,
            count,
            values,
        }) => step(&file, &entry, limit, count, values, &host),
        Some(Command::Test {
            paths,
            engine,
            compiled,
            verbose,
            timeout,
        }) => test(&paths, &engine, compiled, verbose, timeout, host),
        Some(Command::Literate {
            program,
            output,
            stop_on_error,
            verbose,
        }) => Ok(literate(urchin::literate::Options {
            program,
            output,
            stop_on_error,
            verbose,
            host,
        })),
        Some(Command::Jupyter { action }) => Ok(jupyter(action, host)),
        Some(Command::Server { program }) => {
            urchin::server::run(&program, color(), host).map_err(fail)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Lsp) => {
            urchin::lsp::run().map_err(fail)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench {
            paths,
            runs,
            entry,
            json,
        }) => bench(
            &paths,
            runs as usize,
            entry,
            json,
            cli.device.as_deref(),
            cli.threads.map(|n| n as usize),
            host,
        ),
    }
}

/// A command whose standard output is closed early (`urchin check big.fut
/// | head`) ends quietly, as other command-line tools do, instead of
/// panicking on the broken pipe in `println!` (Rust ignores SIGPIPE by
/// default). The REPL and the Jupyter kernel keep ignoring it: they must
/// outlive a closed pipe.
fn end_quietly_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the signal's default disposition at start-up, before
    // any other thread runs; no memory is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn literate(opts: urchin::literate::Options) -> ExitCode {
    match urchin::literate::run(&opts) {
        urchin::literate::Outcome::Written { failed: 0 } => ExitCode::SUCCESS,
        urchin::literate::Outcome::Written { failed } => {
            eprintln!(
                "{failed} directive{} failed (marked FAILED in the document)",
                if failed == 1 { "" } else { "s" }
            );
            ExitCode::FAILURE
        }
        urchin::literate::Outcome::Failed(why) => {
            eprintln!("{why}");
            ExitCode::FAILURE
        }
    }
}

fn jupyter(action: Jupyter, host: Host) -> ExitCode {
    let result = match action {
        Jupyter::Install { prefix } => urchin::jupyter::install(prefix.as_deref()).map(|dir| {
            println!("installed the urchin kernel in {}", dir.display());
        }),
        Jupyter::Kernel { connection_file } => urchin::jupyter::kernel(&connection_file, host),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the arguments of an entry point from the command line (or stdin
/// when there are none), at the parameter types.
fn arguments(
    s: &mut Session,
    entry: &str,
    types: &[urchin_core::ir::Type],
    values: Vec<String>,
) -> Result<Option<Vec<urchin_runtime::value::Value>>> {
    let data = if values.is_empty() && !types.is_empty() {
        // Data may be as large as memory allows (the limit), no larger.
        let budget = s.host().memory;
        urchin_base::mem::read_bounded(
            std::io::stdin().lock(),
            usize::MAX,
            budget,
            "standard input",
        )
        .map_err(|e| fail(format!("cannot read standard input: {e}")))?
    } else {
        values.join(" ").into_bytes()
    };
    let input = s.add_source("<arguments>", &urchin_runtime::values::display_text(&data));
    let lits = match read_values(&data, input) {
        Ok(v) => v,
        Err(d) => {
            eprint!("{}", d.render(&s.sources, color()));
            return Ok(None);
        }
    };
    if lits.len() != types.len() {
        return Err(fail(format!(
            "`{entry}` takes {} value{}, but {} {} given",
            types.len(),
            if types.len() == 1 { "" } else { "s" },
            lits.len(),
            if lits.len() == 1 { "was" } else { "were" }
        )));
    }
    let mut args = Vec::new();
    for (i, (l, t)) in lits.iter().zip(types).enumerate() {
        let vt = urchin_runtime::values::ValueType::new(t.elem(), t.rank() as usize);
        args.push(
            l.to_value(Some(vt))
                .map_err(|e| fail(format!("argument {}: {e}", i + 1)))?,
        );
    }
    Ok(Some(args))
}

fn run(
    file: &PathBuf,
    entry: &str,
    binary: bool,
    values: Vec<String>,
    host: &Host,
) -> Result<ExitCode> {
    let Some((mut s, id)) = load_entry(file, entry, host)? else {
        return Ok(ExitCode::FAILURE);
    };
    let compiled = match s.compile(id) {
        Ok(c) => c,
        Err(d) => {
            eprint!("{}", d.render(&s.sources, color()));
            return Ok(ExitCode::FAILURE);
        }
    };
    let Some(args) = arguments(&mut s, entry, &compiled.param_types(), values)? else {
        return Ok(ExitCode::FAILURE);
    };
    match s.run(&compiled, args, &s.eval_options()) {
        Ok(results) if binary => {
            let data =
                urchin_runtime::values::write_binary(&results).map_err(|e| fail(e.to_string()))?;
            std::io::stdout()
                .write_all(&data)
                .map_err(|e| fail(format!("cannot write the results: {e}")))?;
            Ok(ExitCode::SUCCESS)
        }
        // As Futhark's programs print their results.
        Ok(results) => {
            for v in results {
                println!("{}", format_value_futhark(&v));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprint!("{}", e.to_diagnostic().render(&s.sources, color()));
            Ok(ExitCode::FAILURE)
        }
    }
}

fn step(
    file: &PathBuf,
    entry: &str,
    limit: u64,
    count: bool,
    values: Vec<String>,
    host: &Host,
) -> Result<ExitCode> {
    use urchin_reference as semantics;
    let Some((mut s, id)) = load_entry(file, entry, host)? else {
        return Ok(ExitCode::FAILURE);
    };
    let types = semantics::entry_param_types(&s, id);
    let Some(args) = arguments(&mut s, entry, &types, values)? else {
        return Ok(ExitCode::FAILURE);
    };
    if count {
        return match semantics::run_entry(&s, id, args, &semantics::Options::default()) {
            Ok((results, steps)) => {
                println!("{steps} step{}", if steps == 1 { "" } else { "s" });
                for v in results {
                    println!("{}", format_value(&v));
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(semantics::Stop::Error(e)) => {
                eprint!("{}", e.to_diagnostic().render(&s.sources, color()));
                Ok(ExitCode::FAILURE)
            }
            Err(stop) => Err(fail(stop.to_string())),
        };
    }
    let opts = semantics::TraceOptions {
        limit,
        color: std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal(),
        ..Default::default()
    };
    // Streamed, so that a long reduction shows its first steps at once.
    let mut stdout = std::io::stdout();
    let reached = semantics::entry_trace(&s, id, args, &opts, &mut |line| {
        let _ = stdout
            .write_all(line.as_bytes())
            .and_then(|_| stdout.flush());
    })
    .map_err(fail)?;
    // A stuck term is a run-time error, as for `urchin run`.
    Ok(if reached {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn check(file: &PathBuf, stats: bool, local_solving: bool, host: &Host) -> Result<ExitCode> {
    let mut s = Session::with_host(host.clone());
    s.types.local_solving = local_solving;
    let Some((s, ids)) = load_with(file, s)? else {
        return Ok(ExitCode::FAILURE);
    };
    for id in ids {
        let d = s.def(id);
        let mut namer = urchin_types::ty::Namer::default();
        println!(
            "{} : {}",
            d.name,
            d.scheme
                .show_sized_with(&mut namer, &d.source, d.sizes.as_ref())
        );
        if stats {
            let st = &d.stats;
            println!(
                "  applications: {}, solved locally: {}, ILP: {} variables, {} constraints, {} solve{} in {:.3} ms",
                st.applications,
                st.solved_locally,
                st.ilp_variables,
                st.ilp_constraints,
                st.ilp_solves,
                if st.ilp_solves == 1 { "" } else { "s" },
                st.ilp_time.as_secs_f64() * 1000.0
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn elab(file: &PathBuf, host: &Host) -> Result<ExitCode> {
    let Some((mut s, ids)) = load(file, host)? else {
        return Ok(ExitCode::FAILURE);
    };
    // Type declarations print as written, in their places, so that the
    // output is a program that checks again.
    let text = read(file, host)?;
    let file_id = s.sources.add(file.display().to_string(), text.clone());
    let decs = urchin_syntax::parse_program(&text, file_id)
        .map(|p| p.decs)
        .unwrap_or_default();
    print!("{}", urchin::driver::elaborated(&s, &decs, &ids));
    Ok(ExitCode::SUCCESS)
}

fn core(
    file: &PathBuf,
    entry: Option<String>,
    simplify: bool,
    after: Option<&str>,
    host: &Host,
) -> Result<ExitCode> {
    let Some((s, ids)) = load(file, host)? else {
        return Ok(ExitCode::FAILURE);
    };
    let targets: Vec<_> = match &entry {
        Some(e) => match s.lookup_def(e) {
            Some(id) => vec![id],
            None => return Err(no_entry(&s, &ids, file, e).into()),
        },
        None => ids.into_iter().filter(|id| s.def(*id).entry).collect(),
    };
    let mut failed = false;
    for id in targets {
        let mut runs = 0;
        let mut seen = |pass: &str, p: &urchin_core::ir::Program| {
            if after == Some(pass) {
                runs += 1;
                println!("-- after `{pass}` (run {runs})");
                println!("{}", urchin_core::pretty::Printer::program_labelled(p));
            }
        };
        match s.compile_seen(id, simplify, &mut seen) {
            Ok(c) if after.is_none() => {
                println!(
                    "{}",
                    urchin_core::pretty::Printer::program_labelled(&c.program)
                )
            }
            Ok(_) if runs == 0 => eprintln!(
                "note: the pass `{}` did not run for `{}` (`merge` runs only where there is reverse-mode code)",
                after.unwrap_or_default(),
                s.def(id).name
            ),
            Ok(_) => {}
            Err(d) => {
                eprint!("{}", d.render(&s.sources, color()));
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn test(
    paths: &[PathBuf],
    engine: &str,
    compiled: bool,
    verbose: bool,
    timeout: Option<f64>,
    host: Host,
) -> Result<ExitCode> {
    if paths.is_empty() {
        return Err(fail("give at least one file or directory to test"));
    }
    let timeout = timeout
        .map(|t| {
            std::time::Duration::try_from_secs_f64(t)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    fail(format!(
                        "--timeout takes a positive number of seconds, not {t}"
                    ))
                })
        })
        .transpose()?;
    let opts = urchin::testing::runner::RunnerOptions {
        compiled,
        verbose,
        timeout,
        memory: host.memory,
        ..Default::default()
    };
    let mut out = std::io::stdout();
    let summary = match engine {
        "fast" => {
            let mut e = urchin::testing::engine::FastEngine::with_host(host);
            urchin::testing::runner::run_paths(paths, &mut e, &opts, &mut out).map_err(io_failed)?
        }
        "small-step" => {
            let mut e = urchin::testing::engine::SmallStepEngine::with_host(host);
            urchin::testing::runner::run_paths(paths, &mut e, &opts, &mut out).map_err(io_failed)?
        }
        other => {
            return Err(Box::new(
                Diagnostic::new(Phase::Other, format!("unknown engine `{other}`"))
                    .with_help("the engines are `fast` and `small-step`"),
            ));
        }
    };
    Ok(if summary.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn bench(
    paths: &[PathBuf],
    runs: usize,
    entry: Option<String>,
    json: bool,
    device: Option<&str>,
    threads: Option<usize>,
    host: Host,
) -> Result<ExitCode> {
    use urchin::testing::bench::Backend;
    use urchin_gpu::Choice;
    if paths.is_empty() {
        return Err(fail("give at least one file or directory to benchmark"));
    }
    // `--device NAME`: the evaluator and the device, side by side.
    let backends = match device.map(Choice::parse) {
        None | Some(Choice::None) => Vec::new(),
        Some(choice) => {
            let g = host
                .devices
                .open(&choice)
                .map_err(|why| fail(format!("--device {choice}: {why}")))?;
            let name = g.info().name;
            match threads {
                Some(n) => {
                    let mut rows = Backend::thread_rows("evaluator", None, n);
                    rows.extend(Backend::thread_rows(&name, Some(g), n));
                    rows
                }
                None => vec![
                    Backend {
                        name: "evaluator".into(),
                        device: None,
                        threads: None,
                    },
                    Backend {
                        name,
                        device: Some(g),
                        threads: None,
                    },
                ],
            }
        }
    };
    // `--threads N`: one thread and N, side by side.
    let backends = match (backends.is_empty(), threads) {
        (true, Some(n)) => Backend::thread_rows("", None, n),
        _ => backends,
    };
    let opts = urchin::testing::bench::BenchOptions {
        runs,
        entry,
        json,
        backends,
        host,
    };
    let (summary, _, entries) = urchin::testing::bench::bench_paths(
        paths,
        &opts,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    )
    .map_err(io_failed)?;
    if let Some(e) = opts.entry.as_ref().filter(|e| !entries.contains(*e)) {
        let named: Vec<String> = entries.iter().map(|e| format!("`{e}`")).collect();
        let d = Diagnostic::new(
            Phase::Other,
            format!("no test block names the entry point `{e}`"),
        );
        return Err(Box::new(if named.is_empty() {
            d.with_help("the files have no test blocks with entry points")
        } else {
            d.with_help(format!(
                "the entry points with test blocks are {}",
                named.join(", ")
            ))
        }));
    }
    Ok(if summary.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn io_failed(e: std::io::Error) -> Box<Diagnostic> {
    fail(e.to_string())
}
