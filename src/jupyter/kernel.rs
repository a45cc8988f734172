//! The kernel process: the five sockets of a Jupyter connection and the
//! messages on them. Cells run on an engine thread (evaluation blocks),
//! while the async side keeps answering the heartbeat and the control
//! channel (interrupts and shutdown) and publishes outputs on IOPub as the
//! engine produces them.

use super::engine::{Engine, Interrupter};
use crate::host::Host;
use jupyter_protocol::{
    CodeMirrorMode, CommInfoReply, CompleteReply, ConnectionInfo, ExecuteInput, ExecuteReply,
    ExecutionCount, HistoryReply, InspectReply, InterruptReply, IsCompleteReply, JupyterMessage,
    JupyterMessageContent as Content, KernelInfoReply, LanguageInfo, ReplyError, ReplyStatus,
    ShutdownReply, Status,
};
use jupyter_zmq_client::{
    KernelControlConnection, KernelIoPubConnection, RuntimeError, create_kernel_control_connection,
    create_kernel_heartbeat_connection, create_kernel_iopub_connection,
    create_kernel_shell_connection, create_kernel_stdin_connection,
};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use tokio::sync::{Mutex, mpsc as amp, oneshot};

/// Work for the engine thread.
enum Job {
    Execute {
        code: String,
        count: usize,
        events: amp::UnboundedSender<Event>,
    },
    Complete {
        code: String,
        cursor: usize,
        reply: oneshot::Sender<CompleteReply>,
    },
    Inspect {
        code: String,
        cursor: usize,
        reply: oneshot::Sender<InspectReply>,
    },
    IsComplete {
        code: String,
        reply: oneshot::Sender<IsCompleteReply>,
    },
}

/// What a running cell reports.
enum Event {
    Output(Content),
    Done(Result<(), ReplyError>),
}

type IoPub = Arc<Mutex<KernelIoPubConnection>>;

/// Runs the kernel described by a connection file until it is shut down.
pub fn run(connection_file: &Path, host: Host) -> Result<(), String> {
    let text = std::fs::read_to_string(connection_file)
        .map_err(|e| format!("cannot read {}: {e}", connection_file.display()))?;
    let info: ConnectionInfo = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a Jupyter connection file: {e}",
            connection_file.display()
        )
    })?;
    let (jobs, queue) = mpsc::channel::<Job>();
    let (ready, interrupter) = mpsc::channel::<Interrupter>();
    // The REPL's recursion (checking, evaluating) wants more stack than a
    // thread's default.
    std::thread::Builder::new()
        .name("urchin-engine".into())
        .stack_size(64 << 20)
        .spawn(move || serve_jobs(queue, ready, host))
        .map_err(|e| format!("cannot start the engine: {e}"))?;
    let interrupter = interrupter
        .recv()
        .map_err(|_| "the engine did not start".to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the kernel's event loop: {e}"))?;
    runtime.block_on(serve(info, jobs, interrupter))
}

fn serve_jobs(queue: mpsc::Receiver<Job>, ready: mpsc::Sender<Interrupter>, host: Host) {
    let mut engine = Engine::new(host);
    if ready.send(engine.interrupter()).is_err() {
        return;
    }
    for job in queue {
        match job {
            Job::Execute {
                code,
                count,
                events,
            } => {
                let result = engine.execute(&code, count, &mut |c| {
                    let _ = events.send(Event::Output(c));
                });
                let _ = events.send(Event::Done(result));
            }
            Job::Complete {
                code,
                cursor,
                reply,
            } => {
                let _ = reply.send(engine.complete(&code, cursor));
            }
            Job::Inspect {
                code,
                cursor,
                reply,
            } => {
                let _ = reply.send(engine.inspect(&code, cursor));
            }
            Job::IsComplete { code, reply } => {
                let _ = reply.send(engine.is_complete(&code));
            }
        }
    }
}

/// Whether a failed read means the socket is gone (rather than one bad
/// message).
fn fatal(e: &RuntimeError) -> bool {
    matches!(e, RuntimeError::ZmqError(_) | RuntimeError::IoError(_))
}

async fn serve(
    info: ConnectionInfo,
    jobs: mpsc::Sender<Job>,
    interrupter: Interrupter,
) -> Result<(), String> {
    let failed = |e: RuntimeError| format!("cannot open the kernel's sockets: {e}");
    let session = uuid::Uuid::new_v4().to_string();
    let iopub: IoPub = Arc::new(Mutex::new(
        create_kernel_iopub_connection(&info, &session)
            .await
            .map_err(failed)?,
    ));
    let mut shell = create_kernel_shell_connection(&info, &session)
        .await
        .map_err(failed)?;
    let control = create_kernel_control_connection(&info, &session)
        .await
        .map_err(failed)?;
    // Nothing asks the user for input, but the socket must be there.
    let _stdin = create_kernel_stdin_connection(&info, &session)
        .await
        .map_err(failed)?;
    let mut heartbeat = create_kernel_heartbeat_connection(&info)
        .await
        .map_err(failed)?;
    tokio::spawn(async move { while heartbeat.single_heartbeat().await.is_ok() {} });
    tokio::spawn(serve_control(control, iopub.clone(), interrupter));
    let mut count = 0;
    loop {
        let msg = match shell.read().await {
            Ok(m) => m,
            Err(e) if fatal(&e) => return Err(format!("the shell socket failed: {e}")),
            Err(e) => {
                eprintln!("urchin kernel: ignoring a message: {e}");
                continue;
            }
        };
        publish(&iopub, Status::busy().as_child_of(&msg)).await;
        let reply: Option<JupyterMessage> = match &msg.content {
            Content::KernelInfoRequest(_) => Some(kernel_info().as_child_of(&msg)),
            Content::ExecuteRequest(req) => {
                if !req.silent {
                    count += 1;
                    let input = ExecuteInput {
                        code: req.code.clone(),
                        execution_count: ExecutionCount::new(count),
                    };
                    publish(&iopub, input.as_child_of(&msg)).await;
                }
                let reply = execute(&jobs, &iopub, &msg, &req.code, count, req.silent).await;
                Some(reply.as_child_of(&msg))
            }
            Content::CompleteRequest(req) => {
                let (reply, answer) = oneshot::channel();
                let job = Job::Complete {
                    code: req.code.clone(),
                    cursor: req.cursor_pos,
                    reply,
                };
                ask(&jobs, job, answer).await.map(|r| r.as_child_of(&msg))
            }
            Content::InspectRequest(req) => {
                let (reply, answer) = oneshot::channel();
                let job = Job::Inspect {
                    code: req.code.clone(),
                    cursor: req.cursor_pos,
                    reply,
                };
                ask(&jobs, job, answer).await.map(|r| r.as_child_of(&msg))
            }
            Content::IsCompleteRequest(req) => {
                let (reply, answer) = oneshot::channel();
                let job = Job::IsComplete {
                    code: req.code.clone(),
                    reply,
                };
                ask(&jobs, job, answer).await.map(|r| r.as_child_of(&msg))
            }
            Content::HistoryRequest(_) => Some(HistoryReply::default().as_child_of(&msg)),
            Content::CommInfoRequest(_) => Some(CommInfoReply::default().as_child_of(&msg)),
            Content::ShutdownRequest(req) => {
                shutdown(&mut shell, &iopub, &msg, req.restart).await;
                None
            }
            _ => None,
        };
        if let Some(reply) = reply
            && let Err(e) = shell.send(reply).await
        {
            eprintln!("urchin kernel: cannot reply: {e}");
        }
        publish(&iopub, Status::idle().as_child_of(&msg)).await;
    }
}

/// Interrupts and shutdown, answered even while a cell runs.
async fn serve_control(
    mut control: KernelControlConnection,
    iopub: IoPub,
    interrupter: Interrupter,
) {
    loop {
        let msg = match control.read().await {
            Ok(m) => m,
            Err(e) if fatal(&e) => return,
            Err(e) => {
                eprintln!("urchin kernel: ignoring a control message: {e}");
                continue;
            }
        };
        let reply = match &msg.content {
            Content::InterruptRequest(_) => {
                interrupter.interrupt();
                InterruptReply::new().as_child_of(&msg)
            }
            Content::KernelInfoRequest(_) => kernel_info().as_child_of(&msg),
            Content::ShutdownRequest(req) => {
                shutdown(&mut control, &iopub, &msg, req.restart).await;
                continue;
            }
            _ => continue,
        };
        if let Err(e) = control.send(reply).await {
            eprintln!("urchin kernel: cannot reply on control: {e}");
        }
    }
}

/// Replies to a shutdown request and ends the process (a restart is the
/// client starting a new one).
async fn shutdown(
    socket: &mut KernelControlConnection,
    iopub: &IoPub,
    msg: &JupyterMessage,
    restart: bool,
) {
    let reply = ShutdownReply {
        restart,
        status: ReplyStatus::Ok,
        error: None,
    };
    let _ = socket.send(reply.as_child_of(msg)).await;
    publish(iopub, Status::idle().as_child_of(msg)).await;
    // Let the reply leave before the sockets close.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    std::process::exit(0);
}

async fn publish(iopub: &IoPub, msg: JupyterMessage) {
    if let Err(e) = iopub.lock().await.send(msg).await {
        eprintln!("urchin kernel: cannot publish: {e}");
    }
}

/// Sends a question to the engine and waits for its answer.
async fn ask<T>(jobs: &mpsc::Sender<Job>, job: Job, answer: oneshot::Receiver<T>) -> Option<T> {
    jobs.send(job).ok()?;
    answer.await.ok()
}

/// Runs a cell on the engine, publishing its outputs as they come.
async fn execute(
    jobs: &mpsc::Sender<Job>,
    iopub: &IoPub,
    msg: &JupyterMessage,
    code: &str,
    count: usize,
    silent: bool,
) -> ExecuteReply {
    let (events, mut incoming) = amp::unbounded_channel();
    let job = Job::Execute {
        code: code.to_string(),
        count,
        events,
    };
    let mut result = Err(ReplyError {
        ename: "KernelError".into(),
        evalue: "the engine stopped".into(),
        traceback: Vec::new(),
    });
    if jobs.send(job).is_ok() {
        while let Some(event) = incoming.recv().await {
            match event {
                Event::Output(content) if !silent => {
                    publish(iopub, JupyterMessage::new(content, Some(msg))).await;
                }
                Event::Output(_) => {}
                Event::Done(r) => {
                    result = r;
                    break;
                }
            }
        }
    }
    let (status, error) = match result {
        Ok(()) => (ReplyStatus::Ok, None),
        Err(e) => (ReplyStatus::Error, Some(Box::new(e))),
    };
    ExecuteReply {
        status,
        execution_count: ExecutionCount::new(count),
        error,
        ..Default::default()
    }
}

fn kernel_info() -> KernelInfoReply {
    KernelInfoReply {
        status: ReplyStatus::Ok,
        protocol_version: "5.3".into(),
        implementation: "urchin".into(),
        implementation_version: env!("CARGO_PKG_VERSION").into(),
        language_info: LanguageInfo {
            name: "futhark".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            mimetype: Some("text/x-futhark".into()),
            file_extension: Some(".fut".into()),
            pygments_lexer: Some("futhark".into()),
            // The nearest highlighting CodeMirror has: `--` comments,
            // juxtaposition, `\x ->`.
            codemirror_mode: Some(CodeMirrorMode::Simple("haskell".into())),
            nbconvert_exporter: None,
        },
        banner: format!(
            "urchin {} — Futhark's array language with AUTOMAP and automatic differentiation; :help lists the commands",
            env!("CARGO_PKG_VERSION")
        ),
        help_links: Vec::new(),
        debugger: false,
        error: None,
    }
}
