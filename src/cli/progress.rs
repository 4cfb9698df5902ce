//! The progress line (the command line only, never the library): while a command works for more than
//! about a second, one line on stderr names the stage it is in (reading,
//! preprocessing, the bootstrap, the report, ...) and how long the run has
//! taken so far. Drawn only when stderr is a terminal and neither
//! `--quiet` nor `RSMREPORT_TIMINGS` (whose lines it would break) is set,
//! so pipes, files and CI logs never see it, and the outputs are the same
//! bytes either way.
//!
//! The stages are the library's own [`rsmreport_core::provenance::timed`]
//! stages, reported through its stage hook: nothing is threaded through
//! the maths, and the library draws nothing. Before anything else reaches
//! the terminal (the command's last lines, an error), [`clear`] removes the
//! line.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a command works before the line appears, unless
/// `RSMREPORT_PROGRESS_DELAY_MS` says otherwise (the tests use 0).
const DELAY: Duration = Duration::from_millis(1000);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(120);

/// The line and the stages now running (innermost last).
struct State {
    bar: ProgressBar,
    stages: Vec<String>,
    started: Instant,
    delay: Duration,
    shown: bool,
}

impl State {
    /// Draws the line once the delay has passed and a stage is running.
    fn draw(&mut self) {
        if self.started.elapsed() < self.delay || self.stages.is_empty() {
            return;
        }
        if !self.shown {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_message(message(&self.stages));
        self.bar.tick();
    }
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Whether a progress line may be drawn in this run.
fn wanted() -> bool {
    !super::quiet()
        && std::io::stderr().is_terminal()
        && std::env::var_os("RSMREPORT_TIMINGS").is_none()
        && std::env::var_os("CI").is_none()
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// Installs the progress line for this run when [`wanted`]: the stage
/// hook and the thread that draws the line once [`DELAY`] has passed.
pub fn install() {
    if !wanted() {
        return;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    *lock() = Some(State {
        bar,
        stages: Vec::new(),
        started: Instant::now(),
        delay: std::env::var("RSMREPORT_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DELAY, Duration::from_millis),
        shown: false,
    });
    rsmreport_core::provenance::set_stage_hook(stage);
    std::thread::spawn(|| loop {
        std::thread::sleep(TICK);
        let mut guard = lock();
        let Some(state) = guard.as_mut() else { break };
        state.draw();
    });
}

/// The stage hook: a stage starts (`begin`) or ends.
fn stage(name: &str, begin: bool) {
    let mut guard = lock();
    let Some(state) = guard.as_mut() else { return };
    if begin {
        state.stages.push(name.to_string());
        state.draw();
    } else if let Some(i) = state.stages.iter().rposition(|s| s == name) {
        state.stages.remove(i);
    }
}

/// Removes the line (for good) before the command prints anything else.
pub fn clear() {
    if let Some(state) = lock().take() {
        state.bar.finish_and_clear();
    }
}

/// The line's text: the stages now running, outermost first, with the
/// bootstrap named as such.
fn message(stages: &[String]) -> String {
    stages
        .iter()
        .map(|s| match s.as_str() {
            "intervals" => "intervals (bootstrap)",
            "analyze" | "analyse" => "analysis",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" › ")
}

/// The state, even after a panic on another thread.
fn lock() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_stages_outermost_first() {
        let stages = ["analyze".to_string(), "intervals".to_string()];
        assert_eq!(message(&stages), "analysis › intervals (bootstrap)");
        assert_eq!(message(&["read predictions".into()]), "read predictions");
    }

    #[test]
    fn the_stage_hook_does_nothing_without_a_line() {
        // Tests run with stderr captured: no line is installed, and the
        // hook and `clear` are harmless.
        stage("read", true);
        stage("read", false);
        clear();
        assert!(lock().is_none());
    }
}
