//! `provenance:blame` with the fake `claude`: a committed file, a chat's Edit of some lines (its
//! `run` puts the edit on disk for real, and the recorder keeps the bytes it left), then an edit
//! by hand; each region is blamed on the commit, the chat's step, or nothing recorded.

use std::path::Path;
use std::time::Duration;

use paddock_proto::{
    Blame, BlameSource, ChatEvent, ErrorBody, ErrorCode, ProvenanceFile, Reply, Request,
};

use crate::harness::*;

async fn blame(c: &mut RawClient, slug: &str, path: &str) -> Result<Blame, ErrorBody> {
    c.request(Request::ProvenanceBlame(ProvenanceFile {
        project_slug: Some(slug.into()),
        path: path.into(),
    }))
    .await
    .map(|r| match r {
        Reply::Blame(b) => *b,
        other => panic!("expected blame, got {other:?}"),
    })
}

/// Asks until `done` holds: the recorder writes steps a moment after the frames.
async fn blame_until(
    c: &mut RawClient,
    slug: &str,
    path: &str,
    done: impl Fn(&Blame) -> bool,
) -> Blame {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let last = blame(c, slug, path).await;
        if let Ok(b) = &last
            && done(b)
        {
            return b.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "blame of {path} never as expected: {last:#?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=Ana Lima",
            "-c",
            "user.email=ana@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `(start, end, what)` of each region: `commit SHA`, `step SESSION JOB TOOL` or `unknown`.
fn shape(b: &Blame) -> Vec<(u32, u32, String)> {
    b.regions
        .iter()
        .map(|r| {
            let what = match &r.by {
                BlameSource::Commit(c) => format!("commit {}", c.sha),
                BlameSource::Step(s) => format!("step {} {} {}", s.session_id, s.job_id, s.tool),
                BlameSource::Unknown => "unknown".to_owned(),
            };
            (r.start, r.end, what)
        })
        .collect()
}

#[tokio::test]
async fn lines_are_blamed_on_the_commit_the_chats_edit_or_nothing_recorded() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-blame");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cookie.ts");
    let base = "import { now } from './clock';\n\
                export function refresh(session) {\n\
                \x20 if (session.expiresAt <= now()) {\n\
                \x20   return renew(session);\n\
                \x20 }\n\
                \x20 return session;\n\
                }\n";
    std::fs::write(&file, base).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "cookie.ts"]);
    git(&dir, &["commit", "-q", "-m", "Add cookie refresh"]);
    let head = git(&dir, &["rev-parse", "HEAD"]);
    create_project(&mut c, "web", &dir).await;

    // Before any chat: every line is the commit's.
    let b = blame(&mut c, "web", "cookie.ts").await.unwrap();
    assert_eq!(b.lines.len(), 7);
    assert_eq!(shape(&b), [(1, 7, format!("commit {head}"))]);
    let BlameSource::Commit(commit) = &b.regions[0].by else {
        panic!("not a commit: {b:#?}");
    };
    assert_eq!(
        (commit.summary.as_str(), commit.author.as_str()),
        ("Add cookie refresh", "Ana Lima")
    );

    // A chat's Edit changes lines 3 and 4.
    let edited = base
        .replace("now())", "now() + SKEW_MS)")
        .replace("return renew(session)", "return await renew(session)");
    let source = d.dir.path().join("edited.ts");
    std::fs::write(&source, &edited).unwrap();
    let edit = serde_json::json!({
        "tool": "Edit",
        "input": {
            "file_path": file,
            "old_string": "now())",
            "new_string": "now() + SKEW_MS)",
        },
        "output": "The file has been updated.",
        "run": format!("cp '{}' '{}'", source.display(), file.display()),
    });
    let sent = c
        .send_turn(
            "web",
            None,
            &format!("fake:[{edit},{{\"text\":\"edited\"}}]"),
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    assert!(
        frames
            .iter()
            .any(|f| matches!(f.event, ChatEvent::ToolCall(_))),
        "no tool call in {frames:#?}"
    );
    let step = format!("step {} {} Edit", sent.session_id, sent.job_id);
    let b = blame_until(&mut c, "web", "cookie.ts", |b| {
        b.regions
            .iter()
            .any(|r| matches!(&r.by, BlameSource::Step(s) if s.title.is_some()))
    })
    .await;
    assert_eq!(
        shape(&b),
        [
            (1, 2, format!("commit {head}")),
            (3, 4, step.clone()),
            (5, 7, format!("commit {head}")),
        ],
        "{b:#?}"
    );
    assert!(b.notes.is_empty(), "{:?}", b.notes);
    // The recorder kept the bytes the Edit left.
    let versions = [
        d.cfg.data_dir.join("projects/web/.paddock/versions"),
        dir.join(".paddock/versions"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .expect("a versions folder");
    assert_eq!(std::fs::read_dir(versions).unwrap().count(), 1);

    // The user changes line 6 by hand.
    std::fs::write(
        &file,
        edited.replace("  return session;", "  return { ...session };"),
    )
    .unwrap();
    let b = blame(&mut c, "web", "cookie.ts").await.unwrap();
    assert_eq!(b.project_slug, "web");
    assert_eq!(b.path, "cookie.ts");
    assert_eq!(b.lines[5], "  return { ...session };");
    assert_eq!(
        shape(&b),
        [
            (1, 2, format!("commit {head}")),
            (3, 4, step),
            (5, 5, format!("commit {head}")),
            (6, 6, "unknown".to_owned()),
            (7, 7, format!("commit {head}")),
        ],
        "{b:#?}"
    );
    // An absolute path finds its project by itself.
    let abs = c
        .request(Request::ProvenanceBlame(ProvenanceFile {
            project_slug: None,
            path: file.to_string_lossy().into_owned(),
        }))
        .await
        .unwrap();
    assert!(matches!(abs, Reply::Blame(b) if b.path == "cookie.ts"));
    // Gone, but a chat wrote it: nothing to blame, and the error says where to look.
    std::fs::remove_file(&file).unwrap();
    let e = blame(&mut c, "web", "cookie.ts").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    assert!(e.message.contains("paddock provenance"), "{}", e.message);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn binary_and_missing_files_are_refused() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-bin");
    std::fs::create_dir_all(&dir).unwrap();
    create_project(&mut c, "bin", &dir).await;
    std::fs::write(dir.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let e = blame(&mut c, "bin", "logo.png").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    assert!(
        e.message.contains("text files up to 4 MiB"),
        "{}",
        e.message
    );
    let e = blame(&mut c, "bin", "nope.txt").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    let e = blame(&mut c, "bin", "../outside.txt").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    // Outside a git repository, with no chat: every line is not recorded.
    std::fs::write(dir.join("notes.txt"), "one\ntwo\n").unwrap();
    let b = blame(&mut c, "bin", "notes.txt").await.unwrap();
    assert_eq!(shape(&b), [(1, 2, "unknown".to_owned())]);
    d.stop().await.unwrap();
}
