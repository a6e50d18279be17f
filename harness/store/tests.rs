use super::*;

const NAMES: [&str; 3] = ["a.csv", "b.csv", "c.csv"];

fn store(dir: &Path) -> Store {
    Store::new(dir, &NAMES, "test store", "reseal")
}

/// Generation contents: every file's text says which generation wrote it.
fn contents(tag: &str) -> BTreeMap<String, Vec<u8>> {
    NAMES.iter().map(|n| (n.to_string(), format!("header\n{n} of {tag}\nmore {tag}\n").into_bytes())).collect()
}

fn write(store: &Store, files: BTreeMap<String, Vec<u8>>) -> Result<Option<()>> {
    store.update(|_| Ok(Some((files, ()))))
}

/// Every file in the folder with its bytes (the lock file's too).
/// The folder's files and contents, the lock file's contents left out: its holder line (pid and
/// time) is rewritten each time a writer takes the lock, refused or not, so it is not the store's
/// data (and its time changes when a second ticks between two listings).
fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let data = if name == LOCK_FILE { Vec::new() } else { std::fs::read(e.path()).unwrap() };
            (name, data)
        })
        .collect()
}

fn message(e: Error) -> String {
    match e {
        Error::Store { message, .. } => message,
        other => panic!("expected Error::Store, got {other:?}"),
    }
}

#[test]
fn update_then_read_round_trips_and_identical_contents_commit_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(&dir.path().join("new/folder"));
    assert_eq!(s.read().unwrap(), Snapshot { generation: 0, sealed: false, files: BTreeMap::new() });
    write(&s, contents("one")).unwrap();
    let snap = s.read().unwrap();
    assert_eq!((snap.generation, snap.sealed, &snap.files), (1, true, &contents("one")));
    write(&s, contents("one")).unwrap();
    assert_eq!(s.read().unwrap().generation, 1, "nothing changed, nothing committed");
    // A partial update keeps the files it does not name.
    s.update(|_| Ok(Some((BTreeMap::from([("b.csv".to_string(), b"h\nnew\n".to_vec())]), ())))).unwrap();
    let snap = s.read().unwrap();
    assert_eq!(snap.generation, 2);
    assert_eq!(snap.file("a.csv"), contents("one").get("a.csv").map(Vec::as_slice));
    assert_eq!(snap.file("b.csv"), Some(&b"h\nnew\n"[..]));
    let names: Vec<String> = listing(s.dir()).into_keys().collect();
    assert_eq!(names, [LOCK_FILE, "a.csv", "b.csv", "c.csv", MANIFEST_FILE], "no staged file left behind");
    // `None` from the change writes nothing.
    assert_eq!(s.update(|_| Ok(None::<(BTreeMap<String, Vec<u8>>, ())>)).unwrap(), None);
    assert_eq!(s.read().unwrap().generation, 2);
}

#[test]
fn a_folder_without_manifest_is_read_as_it_is_and_sealed_on_first_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.csv"), "legacy\n").unwrap();
    let s = store(dir.path());
    let snap = s.read().unwrap();
    assert_eq!((snap.generation, snap.sealed), (0, false));
    assert_eq!(snap.file("a.csv"), Some(&b"legacy\n"[..]));
    assert_eq!(snap.file("b.csv"), None);
    // Every file of a store is written together: a change that leaves one missing is refused.
    let e = s.update(|snap| Ok(Some((snap.files.clone(), ())))).unwrap_err();
    assert!(message(e).contains("b.csv would be missing"));
    // A first write that keeps a.csv as it was still seals the folder.
    let rest = BTreeMap::from([("b.csv".to_string(), Vec::new()), ("c.csv".to_string(), Vec::new())]);
    s.update(|_| Ok(Some((rest, ())))).unwrap();
    let snap = s.read().unwrap();
    assert_eq!((snap.generation, snap.sealed), (1, true));
    assert_eq!(snap.file("a.csv"), Some(&b"legacy\n"[..]));
}

#[test]
fn a_file_cut_at_any_byte_or_changed_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    write(&s, contents("one")).unwrap();
    for name in NAMES {
        let path = dir.path().join(name);
        let good = std::fs::read(&path).unwrap();
        for cut in 0..good.len() {
            std::fs::write(&path, &good[..cut]).unwrap();
            let before = listing(dir.path());
            let e = message(s.read().unwrap_err());
            assert!(e.starts_with(&format!("holds {cut} bytes")), "{e}");
            assert!(e.contains("cut short") && e.contains("restore it from a copy") && e.contains("`reseal`"), "{e}");
            // A writer refuses too, before changing anything.
            let refused = write(&s, contents("two")).unwrap_err();
            assert!(message(refused).contains("cut short"));
            assert_eq!(listing(dir.path()), before, "{name} cut at {cut}: nothing written");
        }
        std::fs::write(&path, &good).unwrap();
    }
    // One byte changed in place: same length, other hash.
    let path = dir.path().join("b.csv");
    let mut edited = std::fs::read(&path).unwrap();
    edited[0] = b'H';
    std::fs::write(&path, &edited).unwrap();
    assert!(message(s.read().unwrap_err()).contains("changed or replaced"));
    std::fs::remove_file(&path).unwrap();
    let missing = message(s.read().unwrap_err());
    assert!(missing.starts_with("is missing, but manifest.json (generation 1) vouches for"), "{missing}");
    // Nothing to vouch for: the fix is to restore it or remove the manifest too, not a reseal.
    assert!(missing.contains("if it was removed on purpose, remove") && !missing.contains("reseal"), "{missing}");
}

#[test]
fn reseal_vouches_for_deliberate_edits_after_the_owner_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    write(&s, contents("one")).unwrap();
    std::fs::write(dir.path().join("a.csv"), "edited\n").unwrap();
    let refused =
        s.reseal(|_| Err::<BTreeMap<String, Vec<u8>>, _>(Error::Samples("the owner refuses".into()))).unwrap_err();
    assert!(refused.to_string().contains("the owner refuses"));
    assert!(s.read().is_err(), "a refused reseal writes nothing");
    assert_eq!(
        s.reseal(|snap| if snap.file("a.csv") == Some(b"edited\n") { Ok(BTreeMap::new()) } else { panic!() }).unwrap(),
        2
    );
    assert_eq!(s.read().unwrap().file("a.csv"), Some(&b"edited\n"[..]));
    // A manifest that does not parse, and a file missing: the owner names its contents.
    std::fs::write(dir.path().join(MANIFEST_FILE), "{").unwrap();
    std::fs::remove_file(dir.path().join("c.csv")).unwrap();
    assert!(message(s.reseal(|_| Ok(BTreeMap::new())).unwrap_err()).contains("c.csv is missing"));
    let added = BTreeMap::from([("c.csv".to_string(), b"header\n".to_vec())]);
    assert_eq!(s.reseal(|_| Ok(added)).unwrap(), 1, "an unreadable manifest's generation starts again");
    assert_eq!(s.read().unwrap().file("c.csv"), Some(&b"header\n"[..]));
}

/// The steps of one commit that changes every file.
fn steps_of_a_commit() -> Vec<Step> {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    write(&s, contents("old")).unwrap();
    let mut steps = Vec::new();
    s.update_with(|_| Ok(Some((contents("new"), ()))), &mut |step| {
        steps.push(step.clone());
        ControlFlow::Continue(())
    })
    .unwrap();
    steps
}

#[test]
fn a_writer_killed_at_any_step_leaves_one_whole_generation_and_the_next_writer_finishes_it() {
    let steps = steps_of_a_commit();
    assert_eq!(steps.len(), 3 + 1 + 1 + 3 + 1, "{steps:?}");
    for (k, at) in steps.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        write(&s, contents("old")).unwrap();
        let mut seen = 0;
        let stopped = s.update_with(|_| Ok(Some((contents("new"), ()))), &mut |_| {
            seen += 1;
            if seen > k { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        assert!(message(stopped.unwrap_err()).contains("stopped before"), "step {k}");
        // Readers see one whole generation: the old one before the commit point, the new one after.
        let committed = k > steps.iter().position(|s| *s == Step::Commit).unwrap();
        let snap = s.read().unwrap();
        let want = if committed { contents("new") } else { contents("old") };
        assert_eq!(snap.files, want, "killed before {at:?}");
        assert_eq!(snap.generation, if committed { 2 } else { 1 });
        // The next writer recovers (finishes renames, removes leftovers) and commits its own change.
        s.update(|snap| {
            assert_eq!(snap.files, want, "the writer sees what readers saw");
            Ok(Some((contents("third"), ())))
        })
        .unwrap();
        assert_eq!(s.read().unwrap().files, contents("third"));
        let names: Vec<String> = listing(dir.path()).into_keys().collect();
        assert_eq!(names, [LOCK_FILE, "a.csv", "b.csv", "c.csv", MANIFEST_FILE], "killed before {at:?}");
    }
}

#[test]
fn concurrent_writers_lose_no_update() {
    // Eight threads, each appending its own line to a.csv 25 times, read-modify-write under the lock.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    write(&store(&path), NAMES.iter().map(|n| (n.to_string(), Vec::new())).collect()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let path = &path;
            scope.spawn(move || {
                for i in 0..25 {
                    store(path)
                        .update(|snap| {
                            let mut a = snap.file("a.csv").unwrap_or_default().to_vec();
                            a.extend(format!("{t} {i}\n").bytes());
                            Ok(Some((BTreeMap::from([("a.csv".to_string(), a)]), ())))
                        })
                        .unwrap();
                    // Readers in between always see a whole generation.
                    store(path).read().unwrap();
                }
            });
        }
    });
    let snap = store(&path).read().unwrap();
    let text = String::from_utf8(snap.file("a.csv").unwrap().to_vec()).unwrap();
    assert_eq!(text.lines().count(), 200);
    assert_eq!(snap.generation, 201);
    for t in 0..8 {
        let mine: Vec<&str> = text.lines().filter(|l| l.starts_with(&format!("{t} "))).collect();
        let want: Vec<String> = (0..25).map(|i| format!("{t} {i}")).collect();
        assert_eq!(mine, want, "thread {t}'s updates, in order");
    }
}

#[test]
fn a_manifest_naming_other_files_or_missing_one_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    write(&store(dir.path()), contents("one")).unwrap();
    let two = Store::new(dir.path(), &NAMES[..2], "test store", "reseal");
    assert!(message(two.read().unwrap_err()).contains("lists c.csv, which is not a file of a test store"));
    let four = Store::new(dir.path(), &["a.csv", "b.csv", "c.csv", "d.csv"], "test store", "reseal");
    assert!(message(four.read().unwrap_err()).contains("does not list d.csv"));
}

#[test]
fn the_fix_offers_git_only_inside_a_work_tree() {
    let outside = tempfile::tempdir().unwrap();
    assert!(restore_hint(outside.path()).starts_with("restore it from a copy ("), "{}", restore_hint(outside.path()));
    let repo = tempfile::tempdir().unwrap();
    git2::Repository::init(repo.path()).unwrap();
    let folder = repo.path().join("baselines/g");
    std::fs::create_dir_all(&folder).unwrap();
    let hint = restore_hint(&folder.join("samples.csv"));
    assert!(
        hint.starts_with("restore it from git (`git checkout -- ") && hint.ends_with("samples.csv`) or from a copy"),
        "{hint}"
    );
}
