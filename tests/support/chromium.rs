//! Headless Chromium for the report tests: finding it (or saying why not), running it under a
//! deadline, reading a page's console messages from its log, and measuring how pages lay out in
//! frames of given widths.
//!
//! Console messages are read from chromium's own log (`--enable-logging=stderr --v=0`), where each
//! page message is a line tagged `CONSOLE` (chromium's `LOG(INFO) << "CONSOLE"`); [`Chromium::find`]
//! first checks that a page which logs an error and throws is seen there, so a chromium whose log
//! format changed cannot pass a console check by saying nothing.
//!
//! Widths: headless chromium does not make a window narrower than 500 px (`--window-size=390,…`
//! gives a 500 px viewport), so [`Chromium::layout`] lays each page out in an `<iframe>` of the
//! width asked for, inside one wide page whose script measures the frames once they have loaded.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a chromium run may take before the test gives up on it.
pub const DEADLINE: Duration = Duration::from_secs(90);

/// A headless chromium and the scratch folder of its profile and pages.
pub struct Chromium {
    path: PathBuf,
    scratch: tempfile::TempDir,
}

/// One page to lay out: its HTML, shown in an `<iframe>` of `width` x `height` CSS pixels.
#[derive(Default)]
pub struct Frame<'a> {
    /// What the measurements are reported under.
    pub name: &'a str,
    /// The frame's width, CSS px: its viewport (scrollbar included).
    pub width: u32,
    /// The frame's height, CSS px.
    pub height: u32,
    /// The page.
    pub html: &'a str,
    /// A CSS selector of the elements whose words must not break across lines (`.name, code`);
    /// empty for none.
    pub unbroken: &'a str,
    /// A CSS selector of the elements that must be in view whole, side to side, as the page opens
    /// (`table.changed td.explains`); empty for none ([`Layout::cut`]).
    pub inside: &'a str,
    /// A CSS selector of the elements of each `<svg>` no two of which may overlap
    /// (`text.cp-label`); empty for none ([`Layout::overlapping`]).
    pub apart: &'a str,
}

/// How one [`Frame`]'s page laid out.
#[derive(Debug, serde::Deserialize)]
pub struct Layout {
    /// [`Frame::name`].
    pub name: String,
    /// `document.documentElement.scrollWidth`: the page's width with all its content, CSS px.
    pub scroll_width: f64,
    /// `document.documentElement.clientWidth`: the viewport's width less a scrollbar, CSS px.
    pub client_width: f64,
    /// The words of [`Frame::unbroken`]'s elements (runs of characters between spaces and `/`)
    /// that were laid out on more than one line.
    pub broken: Vec<String>,
    /// The most lines any one element of [`Frame::unbroken`] takes (0 when there is none).
    pub most_lines: usize,
    /// The smallest text of the page's `svg.chart`s as drawn, CSS px: font size times the chart's
    /// scale (its drawn width over its viewBox width); `None` without a chart.
    pub min_chart_text_px: Option<f64>,
    /// The tag and class of the body's first element (`header.status`).
    pub first: String,
    /// For each `<table>`: the `scrollWidth` and `clientWidth` (CSS px) of the box that scrolls
    /// it sideways (itself or an ancestor with `overflow-x: auto` or `scroll`; itself if none): a
    /// table wider than that box has the first larger.
    pub tables: Vec<(f64, f64)>,
    /// How many elements [`Frame::inside`] matched (rendered, with a box).
    pub inside: usize,
    /// Those of them not wholly in view side to side, each as `its text: left..right px outside
    /// the view from..to`: the view is the viewport narrowed by every ancestor whose `overflow-x`
    /// is not `visible` (a box that scrolls shows its left end as the page opens), so a cell of a
    /// table that scrolls in its frame and reaches past the frame's right edge is cut.
    pub cut: Vec<String>,
    /// How many elements [`Frame::apart`] matched.
    pub apart: usize,
    /// Pairs of them, within one `<svg>`, whose boxes (as drawn) overlap: `first / second`.
    pub overlapping: Vec<String>,
}

impl Layout {
    /// Whether the page is wider than its frame: the page itself scrolls sideways.
    pub fn overflows(&self) -> bool {
        self.scroll_width > self.client_width
    }
}

impl Chromium {
    /// Chromium from PATH (`chromium`, `chromium-browser`), once its console check has passed.
    /// Without it: `None`, said on stderr naming `test`; a failure under
    /// `KERNELGATE_REQUIRE_CHROMIUM=1` (CI).
    ///
    /// # Panics
    /// When chromium's log does not show a probe page's console error and exception.
    pub fn find(test: &str) -> Option<Chromium> {
        let Some(path) = find_on_path(&["chromium", "chromium-browser"]) else {
            super::skip_without(
                "CHROMIUM",
                &format!(
                    "{test}: chromium is not on PATH, so the report was not opened in a browser; install Debian's \
                     `chromium` (apt-get install chromium) to run this test"
                ),
            );
            return None;
        };
        let chromium = Chromium { path, scratch: tempfile::tempdir().unwrap() };
        let probe = chromium.page(
            "probe.html",
            "<!DOCTYPE html><script>console.error('kernelgate-probe'); undefined_function();</script>",
        );
        let (_, log) = chromium.run(&["--dump-dom"], &probe);
        let seen = console_lines(&log);
        assert!(
            seen.iter().any(|l| l.contains("kernelgate-probe")) && seen.iter().any(|l| l.contains("Uncaught")),
            "chromium's log did not show a probe page's console error and exception, so console messages cannot be \
             checked this way any more; its CONSOLE lines were: {seen:#?}"
        );
        Some(chromium)
    }

    /// Writes `html` to `name` in the scratch folder; returns its path.
    pub fn page(&self, name: &str, html: &str) -> PathBuf {
        let path = self.scratch.path().join(name);
        std::fs::write(&path, html).unwrap();
        path
    }

    /// Runs headless chromium on `file` with `args`; returns (stdout, stderr).
    ///
    /// # Panics
    /// On a failure or after [`DEADLINE`], with what chromium said.
    pub fn run(&self, args: &[&str], file: &Path) -> (String, String) {
        // One chromium at a time per test process: on CI's 2 cores, two at once (libtest runs a
        // binary's tests in parallel) came within the deadline's reach.
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let mut child = Command::new(&self.path)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", self.scratch.path().join("profile").display()))
            .args(args)
            .arg(format!("file://{}", file.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.path.display()));
        // Drain both pipes on threads so a full pipe cannot stall chromium.
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || std::io::read_to_string(&mut stdout).unwrap_or_default());
        let err = std::thread::spawn(move || std::io::read_to_string(&mut stderr).unwrap_or_default());
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not finish within {DEADLINE:?}: {}", self.path.display(), err.join().unwrap());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (out, err) = (out.join().unwrap(), err.join().unwrap());
        assert!(status.success(), "{} {args:?} failed ({status}):\n{err}", self.path.display());
        (out, err)
    }

    /// Lays out each of `frames` in its own `<iframe>` (its page as `srcdoc`, so that the outer
    /// page's script may read it) and measures them after they have loaded. Returns the layouts
    /// in order, and the console lines of the run (any page's). `screenshot` also saves a picture
    /// of the frames side by side (a window `window_width` px wide).
    ///
    /// # Panics
    /// When chromium fails or the measurements are missing from the page it dumps.
    pub fn layout(&self, frames: &[Frame<'_>], screenshot: Option<(&Path, u32)>) -> (Vec<Layout>, Vec<String>) {
        let mut html = String::from(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body { margin: 8px; } \
             iframe { border: 1px solid #888; vertical-align: top; margin: 0 8px 8px 0; }</style></head><body>\n",
        );
        for f in frames {
            html += &format!(
                "<iframe data-name=\"{}\" data-unbroken=\"{}\" data-inside=\"{}\" data-apart=\"{}\" style=\"width: {}px; height: {}px\" srcdoc=\"{}\"></iframe>\n",
                kernelgate::report::html::escape(f.name),
                kernelgate::report::html::escape(f.unbroken),
                kernelgate::report::html::escape(f.inside),
                kernelgate::report::html::escape(f.apart),
                f.width,
                f.height,
                kernelgate::report::html::escape(f.html)
            );
        }
        html += concat!("<script>\n", include_str!("layout.js"), "</script>\n</body></html>\n");
        let file = self.page("frames.html", &html);
        let (dom, log) = self.run(&["--dump-dom", "--window-size=1900,1200"], &file);
        let json = dom
            .rsplit_once("<pre id=\"kernelgate-layout\">")
            .and_then(|(_, rest)| rest.split("</pre>").next())
            .unwrap_or_else(|| panic!("the measurements are not in the page chromium dumped:\n{dom}\n{log}"));
        let json = json.replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u{a0}").replace("&amp;", "&");
        let layouts: Vec<Layout> = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(layouts.len(), frames.len(), "one measurement per frame: {json}");
        let mut console: Vec<String> = console_lines(&log).into_iter().map(String::from).collect();
        if let Some((png, window_width)) = screenshot {
            let _ = std::fs::remove_file(png);
            let height = frames.iter().map(|f| f.height).max().unwrap_or(0) + 40;
            let (_, log) = self.run(
                &[
                    &format!("--screenshot={}", png.display()),
                    &format!("--window-size={window_width},{height}"),
                    "--hide-scrollbars",
                ],
                &file,
            );
            console.extend(console_lines(&log).into_iter().map(String::from));
            let bytes = std::fs::read(png)
                .unwrap_or_else(|e| panic!("no screenshot at {}: {e}; chromium said:\n{log}", png.display()));
            assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is not a PNG", png.display());
        }
        (layouts, console)
    }
}

/// Chromium's log lines that carry a page's console message or uncaught exception.
pub fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE") || l.contains("CONSOLE(") || l.contains("Uncaught")).collect()
}

fn find_on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| names.iter().map(move |n| dir.join(n))).find(|p| p.is_file())
}

/// Cargo's target folder: the parent of the integration tests' scratch folder.
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("CARGO_TARGET_TMPDIR is inside target/").to_path_buf()
}
