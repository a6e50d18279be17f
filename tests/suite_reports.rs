//! The suite binary's exit codes and JUnit report, and the resource table's NVRTC column, as a CI
//! job meets them on a machine without a GPU (turn-3 field reports 37, 38, 50, 52): the JUnit XML
//! validates against the Jenkins xunit plugin's junit-10.xsd (tests/fixtures/junit/, checked with
//! xmllint), a JUnit report that cannot be written fails the run, a resource regression alone exits
//! 3, and an `nvrtc` value that is not a version is refused at `reseal` and at every read.
//!
//! Without xmllint the schema checks say why on stderr and pass; `KERNELGATE_REQUIRE_XMLLINT=1`
//! (CI, `.ci/run` installs Debian's `libxml2-utils`) makes its absence a failure. The compile
//! trials need NVRTC, likewise (`KERNELGATE_REQUIRE_NVRTC=1`).

mod support;

use kernelgate::report::junit::{self, Outcome, TrialOutcome};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{copy, kernels, nvrtc_found};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn schema() -> PathBuf {
    root().join("tests/fixtures/junit/jenkins-xunit-junit-10.xsd")
}

/// xmllint's verdict on `xml` against the junit-10 schema: `Some(Ok)` valid, `Some(Err(its
/// words))` invalid, `None` when there is no xmllint (said on stderr; a failure under
/// `KERNELGATE_REQUIRE_XMLLINT=1`).
fn validate(xml: &Path) -> Option<Result<(), String>> {
    let run = Command::new("xmllint").arg("--noout").arg("--schema").arg(schema()).arg(xml).output();
    match run {
        Ok(o) => Some(if o.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&o.stderr).into_owned()) }),
        Err(e) => {
            support::skip_without(
                "XMLLINT",
                &format!(
                    "suite_reports: xmllint could not be run ({e}), so the JUnit XML was not validated against \
                     junit-10.xsd; install Debian's libxml2-utils"
                ),
            );
            None
        }
    }
}

fn assert_valid(xml: &Path) {
    if let Some(Err(words)) = validate(xml) {
        panic!(
            "{} is not valid against junit-10.xsd:\n{words}\n{}",
            xml.display(),
            std::fs::read_to_string(xml).unwrap()
        );
    }
}

/// A baselines folder for the suite: the project's `sm_80` table and field report 52's `sm_90`
/// table, whose `saxpy_vec4_head` row claims 30 registers and 100 % occupancy at block 256 (NVRTC
/// 13.5 gives it 38 and 75 %), so `compile/vectorization.cu/sm_90` fails its resource gate alone.
fn baselines(dir: &Path) -> PathBuf {
    let b = dir.join("b");
    copy(&root().join("baselines/sm_80"), &b.join("sm_80"));
    copy(
        &root().join("tests/fixtures/field-reports/turn3/52-resource-gate-exits-101/baselines/sm_90"),
        &b.join("sm_90"),
    );
    // The fixture froze vectorization.cu's rows as they were; a kernel added to the file since
    // (and blessed) gets its committed rows appended, so that the report's rows stay where they
    // are and the gate judges only them; the table is then resealed, as a bless would leave it.
    let table = b.join("sm_90/resources.csv");
    let frozen = std::fs::read_to_string(&table).unwrap();
    let key = |row: &str| row.split(',').skip(1).take(3).collect::<Vec<_>>().join(",");
    let known: Vec<String> = frozen.lines().map(key).collect();
    let added: String = std::fs::read_to_string(root().join("baselines/sm_90/resources.csv"))
        .unwrap()
        .lines()
        .filter(|row| row.starts_with("1,vectorization.cu,") && !known.contains(&key(row)))
        .map(|row| format!("{row}\n"))
        .collect();
    if !added.is_empty() {
        std::fs::write(&table, frozen + &added).unwrap();
        let (code, text) = reseal(dir);
        assert_eq!(code, 0, "resealing the fixture with the rows added: {text}");
    }
    b
}

#[test]
fn report_37_the_junit_xml_validates_against_the_jenkins_xunit_schema() {
    // The schema check can fail: kernelgate's JUnit before the fix (`skipped` on <testsuites>) is refused.
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.xml");
    std::fs::write(
        &old,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kernelgate\" tests=\"1\" failures=\"0\" \
         errors=\"0\" skipped=\"1\" time=\"0.000000\">\n  <testsuite name=\"kernelgate\" tests=\"1\" failures=\"0\" \
         errors=\"0\" skipped=\"1\" time=\"0.000000\">\n    <testcase classname=\"a\" name=\"b\">\n      <skipped \
         message=\"no GPU\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
    )
    .unwrap();
    if let Some(verdict) = validate(&old) {
        let words = verdict.expect_err("the schema refuses `skipped` on <testsuites>");
        assert!(words.contains("attribute 'skipped': The attribute 'skipped' is not allowed"), "{words}");
    }

    // Every kind of outcome, with names and messages that need escaping; kinds, system-out, the
    // suite's timestamp, hostname and properties.
    let trials = [
        TrialOutcome {
            output: Some("unchanged (time): -0.10 %".into()),
            ..TrialOutcome::new("t/passed/1", 1.25, Outcome::Passed)
        },
        TrialOutcome {
            kind: Some("counter-expectation+regressed".into()),
            output: Some("regressed (time): +25.00 %\n  moved: <dram> & \u{1b}".into()),
            ..TrialOutcome::new(
                "t/<gate>&\"/1",
                1e6,
                Outcome::Failed("regressed (time): +25.00%\nline 2 \u{1b}[31m <b>".into()),
            )
        },
        TrialOutcome {
            kind: Some("harness".into()),
            ..TrialOutcome::new("compile/a.cu/sm_90", f64::NAN, Outcome::Error("a\r\tb".into()))
        },
        TrialOutcome::new("plain", 0.0, Outcome::Skipped("no GPU: \u{FFFF}".into())),
    ];
    let run = junit::Run {
        name: "kernelgate".into(),
        timestamp: junit::timestamp("20261201T185324Z"),
        hostname: Some("runner <7>".into()),
        properties: vec![("commit".into(), "8ee535d\"&".into()), ("gpu.uuid".into(), "GPU-20ce1a7a".into())],
    };
    let synthetic = tmp.path().join("synthetic.xml");
    std::fs::write(&synthetic, junit::render(&run, &trials)).unwrap();
    assert_valid(&synthetic);
    // The check can fail on what this test adds: a property without a value, a timestamp on
    // <testsuites> (which the schema does not have) are refused.
    for (what, bad) in [
        ("<property name=\"commit\" value=", "<property name=\"commit\" data="),
        ("<testsuites name=\"kernelgate\"", "<testsuites timestamp=\"2026-12-01T18:53:24\" name=\"kernelgate\""),
    ] {
        let text = std::fs::read_to_string(&synthetic).unwrap();
        assert!(text.contains(what), "{text}");
        let broken = tmp.path().join("broken.xml");
        std::fs::write(&broken, text.replacen(what, bad, 1)).unwrap();
        if let Some(verdict) = validate(&broken) {
            verdict.expect_err(bad);
        }
    }

    // The suite's own report: compile trials passed, failed (the resource gate) and in error (an
    // sm_80 table cut short), GPU trials skipped (no GPU here).
    let b = baselines(tmp.path());
    let table = b.join("sm_80/resources.csv");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(&table, &text[..text.len() / 2]).unwrap();
    let xml = tmp.path().join("junit.xml");
    let (code, out) = kernels(
        &["vectorization"],
        &[("KERNELGATE_JUNIT", &xml), ("KERNELGATE_BASELINES", &b)],
        &tmp.path().join("out"),
    );
    let report = std::fs::read_to_string(&xml).unwrap_or_else(|e| panic!("no JUnit report ({e}):\n{out}"));
    let testsuites = report.lines().nth(1).unwrap();
    assert!(testsuites.starts_with("<testsuites ") && !testsuites.contains("skipped="), "{testsuites}");
    assert_valid(&xml);
    let suite_line = report.lines().nth(2).unwrap();
    assert!(suite_line.contains(" timestamp=\"20") && !suite_line.contains('Z'), "{suite_line}");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert!(suite_line.contains(&format!(" hostname=\"{}\"", host.trim())), "{suite_line}");
    let version = format!("<property name=\"kernelgate.version\" value=\"{}\"/>", env!("CARGO_PKG_VERSION"));
    assert!(report.contains(&version), "{report}");
    assert!(report.contains("<property name=\"seed\" value=\""), "{report}");
    assert!(
        !report.contains("gpu.uuid") && !report.contains("value=\"unknown\""),
        "no GPU timed, none named: {report}"
    );
    if nvrtc_found() {
        assert_eq!(code, 101, "an error in a trial is not a regression:\n{out}");
        assert!(
            report.contains("<failure message=\"resource gate: kernels/vectorization.cu for sm_90")
                && report.contains("type=\"resource-gate\">resource gate: kernels/vectorization.cu for sm_90"),
            "{report}"
        );
        assert!(report.contains("<property name=\"nvrtc\" value=\"13."), "{report}");
        assert!(report.contains("type=\"harness\">"), "{report}");
        assert!(report.contains("<testcase classname=\"compile\" name=\"vectorization.cu/sm_80\""), "{report}");
        assert!(report.contains("<error message=\""), "the unreadable table is a harness fault:\n{report}");
    }
    assert!(report.contains("<skipped message=\"no GPU: "), "{report}");
}

#[test]
fn report_38_a_junit_report_that_was_asked_for_and_not_written_fails_the_run() {
    let tmp = tempfile::Builder::new().prefix("junit").tempdir().unwrap();
    let out = tmp.path().join("out");
    // Checked before any trial, as the other options are: exit 2, naming the variable and the fix.
    let missing = tmp.path().join("no/such/dir/junit.xml");
    let (code, text) = kernels(&["--exact", "coalescing/copy/67108864"], &[("KERNELGATE_JUNIT", &missing)], &out);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(&format!(
            "environment variable KERNELGATE_JUNIT=\"{}\" is invalid: its folder {} does not exist; create it",
            missing.display(),
            missing.parent().unwrap().display()
        )),
        "{text}"
    );
    assert!(!text.contains("running 1 test"), "no trial ran: {text}");
    let folder = tmp.path().join("isdir.xml");
    std::fs::create_dir(&folder).unwrap();
    let (code, text) = kernels(&["--exact", "coalescing/copy/67108864"], &[("KERNELGATE_JUNIT", &folder)], &out);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("KERNELGATE_JUNIT") && text.contains("is invalid: it names a folder"), "{text}");

    // A write that fails after the trials (a file-size limit of 512 bytes stands for a full disk):
    // exit 1, the report's path named, no temporary file's name, nothing left behind.
    let xml = tmp.path().join("junit.xml");
    let mut cmd = support::command(support::kernels_binary());
    cmd.current_dir(root())
        .arg("coalescing/")
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", &out)
        .env("KERNELGATE_JUNIT", &xml)
        .env_remove("KERNELGATE_BASELINES");
    // SAFETY: between fork and exec; setrlimit and signal are async-signal-safe (POSIX). Writes to
    // files past 512 bytes fail with EFBIG; SIGXFSZ, which would kill the process, is ignored (an
    // ignored signal stays ignored across exec). Pipes (stdout) are not files and are not limited.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 512, rlim_max: 512 };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let o = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "kernelgate: the JUnit report (KERNELGATE_JUNIT) was not written: {}: the report could not be written (File \
             too large (os error 27)); the previous file at this path, if any, is left as it was",
            xml.display()
        )),
        "{text}"
    );
    assert!(text.contains("kernelgate: exit code 1: an output the run was asked for is missing"), "{text}");
    assert!(!text.contains(".tmp"), "no temporary file's name: {text}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!xml.exists() && left.iter().all(|n| !n.to_string_lossy().starts_with(".tmp")), "{left:?}");
}

#[test]
fn report_52_a_resource_regression_alone_exits_3() {
    if !nvrtc_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = baselines(tmp.path());
    // One file: a kernel file a user adds is not in the fixture's tables, and would fail its trial
    // as a new row.
    let (code, text) =
        kernels(&["compile/vectorization.cu/"], &[("KERNELGATE_BASELINES", &b)], &tmp.path().join("out"));
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("saxpy_vec4_head: registers 30 → 38, occupancy 100 % → 75 % at block 256"), "{text}");
    assert!(text.contains("1 trial(s) failed their performance or resource gate only; exit code 3"), "{text}");
}

/// `dir/sm_90/resources.csv` with the `saxpy_vec4_head` row's `nvrtc` field set to `field` (as
/// written in the CSV).
fn with_nvrtc(dir: &Path, field: &str) {
    let path = dir.join("sm_90/resources.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let row = "1,vectorization.cu,saxpy_vec4_head,256,0,30,0,0,0,0,64,100,13.5\n";
    assert!(text.contains(row), "the fixture's row");
    std::fs::write(
        &path,
        text.replace(row, &format!("1,vectorization.cu,saxpy_vec4_head,256,0,30,0,0,0,0,64,100,{field}\n")),
    )
    .unwrap();
}

fn reseal(dir: &Path) -> (i32, String) {
    let o = support::command(support::kernelgate_binary())
        .current_dir(dir)
        .args(["baseline", "reseal", "b/sm_90"])
        .env_remove("KERNELGATE_BASELINES")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

#[test]
fn report_50_an_nvrtc_value_that_is_not_a_version_is_refused_and_a_patch_level_is_gated() {
    let tmp = tempfile::tempdir().unwrap();
    for field in ["13", "v13.5", "\"\"", "thirteen", "\" 13.5\"", "13.5-custom", "13.05"] {
        let _ = std::fs::remove_dir_all(tmp.path().join("b"));
        let b = baselines(tmp.path());
        with_nvrtc(&b, field);
        let before = std::fs::read(b.join("sm_90/manifest.json")).unwrap();
        let (code, text) = reseal(tmp.path());
        assert_eq!(code, 1, "{field}: {text}");
        let shown = field.trim_matches('"');
        assert!(
            text.starts_with(&format!(
                "kernelgate: b/sm_90/resources.csv:53: column `nvrtc` holds {shown:?}, which is not an NVRTC version: \
                 write the major.minor"
            )),
            "{field}: {text}"
        );
        assert!(text.contains("reseal the folder (kernelgate baseline reseal b/sm_90)"), "{text}");
        assert_eq!(std::fs::read(b.join("sm_90/manifest.json")).unwrap(), before, "nothing sealed");
    }
    if !nvrtc_found() {
        return;
    }
    // 13.5.0 is NVRTC 13.5: resealed, and the row is gated (the regression fails, exit 3).
    let _ = std::fs::remove_dir_all(tmp.path().join("b"));
    let b = baselines(tmp.path());
    with_nvrtc(&b, "13.5.0");
    let (code, text) = reseal(tmp.path());
    assert_eq!(code, 0, "{text}");
    let suite = |b: &Path| {
        kernels(&["--exact", "compile/vectorization.cu/sm_90"], &[("KERNELGATE_BASELINES", b)], &tmp.path().join("out"))
    };
    let (code, text) = suite(&b);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("saxpy_vec4_head: registers 30 → 38, occupancy 100 % → 75 % at block 256; if intended"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(b.join("sm_90/resources.csv")).unwrap().matches(",13.5.0\n").count(),
        1,
        "kept as written"
    );
    // Another compiler's row is compared, printed, not gated.
    let table = b.join("sm_90/resources.csv");
    std::fs::write(&table, std::fs::read_to_string(&table).unwrap().replace(",13.5.0\n", ",12.9\n")).unwrap();
    assert_eq!(reseal(tmp.path()).0, 0);
    let (code, text) = suite(&b);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("not gated: the row was blessed with ptxas 12.9, this run's ptxas is 13.5"), "{text}");
}
