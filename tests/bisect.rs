//! `kernelgate bisect` as a user meets it without a GPU: the commits are listed (candidates and
//! skipped ones), and it stops before the first step, saying that the steps need a GPU.

mod support;

use std::path::Path;

fn commit(repo: &git2::Repository, dir: &Path, path: &str, text: &str, message: &str) -> String {
    std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
    std::fs::write(dir.join(path), text).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new(path)).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let parents: Vec<git2::Commit> = repo.head().ok().and_then(|h| h.peel_to_commit().ok()).into_iter().collect();
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents).unwrap().to_string()
}

#[test]
fn without_a_gpu_bisect_lists_the_commits_and_says_its_steps_need_one() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let good = commit(&repo, dir.path(), "kernels/a.cu", "v1", "good");
    commit(&repo, dir.path(), "README.md", "docs", "docs only");
    let bad = commit(&repo, dir.path(), "kernels/a.cu", "v2", "kernel change");
    let o = support::command(support::kernelgate_binary())
        .current_dir(dir.path())
        .args(["bisect", &good, &bad, "--suite", "/bin/true"])
        .env_remove("KERNELGATE_AB")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("2 commits, 1 changed a kernel folder (candidates), 1 did not"), "{text}");
    assert!(text.contains(&format!("candidate {} kernel change", &bad[..12])), "{text}");
    assert!(text.contains("skipped") && text.contains("docs only"), "{text}");
    if text.contains("the steps time kernels on a GPU, and there is none here") {
        assert_eq!(o.status.code(), Some(1), "{text}");
    } else {
        eprintln!("skipped the no-GPU half: this machine has a GPU");
    }
}
