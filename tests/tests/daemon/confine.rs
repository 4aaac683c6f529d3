//! Path confinement over the real socket: no request that names a file follows a symlink out
//! of its project, climbs out with `..`, or reads paddockd's own state (`confine.rs`).

use std::path::PathBuf;

use paddock_proto::{
    ErrorBody, ErrorCode, FilesList, FilesRead, ProjectCreate, ProvenanceFile, Reply, Request,
};

use crate::harness::*;

const SECRET: &str = "root:x:0:0:not yours";

/// A project directory `demo` with a file of its own, and beside it a folder `outside` with a
/// secret that `pwlink` (a file) and `escape` (a folder) point at.
fn demo(d: &TestDaemon) -> (PathBuf, PathBuf) {
    let dir = d.dir.path().join("demo");
    let outside = d.dir.path().join("outside");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(dir.join("notes.txt"), "first\nsecond\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), dir.join("pwlink")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("escape")).unwrap();
    std::os::unix::fs::symlink("notes.txt", dir.join("inlink")).unwrap();
    (dir, outside)
}

async fn blame(c: &mut RawClient, slug: Option<&str>, path: &str) -> Result<Reply, ErrorBody> {
    c.request(Request::ProvenanceBlame(ProvenanceFile {
        project_slug: slug.map(str::to_owned),
        path: path.into(),
    }))
    .await
}

async fn provenance(c: &mut RawClient, slug: Option<&str>, path: &str) -> Result<Reply, ErrorBody> {
    c.request(Request::ProvenanceFile(ProvenanceFile {
        project_slug: slug.map(str::to_owned),
        path: path.into(),
    }))
    .await
}

fn refused(what: &str, path: &str, got: Result<Reply, ErrorBody>) {
    match got {
        Err(e) => {
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{what} {path}: {e:?}");
            assert!(!e.message.contains("not yours"), "{what} {path}: {e:?}");
        }
        Ok(r) => panic!("{what} {path} was answered: {r:?}"),
    }
}

#[tokio::test]
async fn blame_and_provenance_never_follow_a_symlink_out_of_the_project() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, outside) = demo(&d);
    create_project(&mut c, "demo", &dir).await;

    let secret = outside.join("secret.txt").to_string_lossy().into_owned();
    let via_link = dir.join("pwlink").to_string_lossy().into_owned();
    let via_folder = dir.join("escape/secret.txt").to_string_lossy().into_owned();
    for path in [
        "pwlink",
        "./pwlink",
        "escape/secret.txt",
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        secret.as_str(),
        via_link.as_str(),
        via_folder.as_str(),
    ] {
        refused("blame", path, blame(&mut c, Some("demo"), path).await);
        refused(
            "provenance",
            path,
            provenance(&mut c, Some("demo"), path).await,
        );
    }
    // Without -p the daemon finds the project holding an absolute path: the same refusal.
    for path in [via_link.as_str(), via_folder.as_str()] {
        refused("blame", path, blame(&mut c, None, path).await);
        refused("provenance", path, provenance(&mut c, None, path).await);
    }

    // The project's own files, and a symlink that stays inside, are answered.
    for path in ["notes.txt", "inlink"] {
        match blame(&mut c, Some("demo"), path).await {
            Ok(Reply::Blame(b)) => assert_eq!(b.lines.len(), 2, "{path}: {b:?}"),
            other => panic!("blame {path}: {other:?}"),
        }
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn paddockds_own_state_is_never_read_even_inside_a_project() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    // A project whose directory holds the daemon's data directory (a project at $HOME).
    let home = d.dir.path().to_path_buf();
    create_project(&mut c, "home", &home).await;
    let data = d.cfg.data_dir.strip_prefix(&home).unwrap().to_path_buf();
    let probe = data.join("state/probe.json");
    std::fs::write(home.join(&probe), format!("{{\"token\":\"{SECRET}\"}}\n")).unwrap();
    let probe = probe.to_string_lossy().into_owned();
    let state = data.join("state").to_string_lossy().into_owned();

    let read = c
        .request(Request::FilesRead(FilesRead {
            project_slug: "home".into(),
            path: probe.clone(),
            max_bytes: None,
        }))
        .await;
    refused("files:read", &probe, read);
    let listed = c
        .request(Request::FilesList(FilesList {
            project_slug: "home".into(),
            path: state.clone(),
            hidden: true,
            limit: None,
        }))
        .await;
    refused("files:list", &state, listed);
    refused("blame", &probe, blame(&mut c, Some("home"), &probe).await);
    refused(
        "provenance",
        &probe,
        provenance(&mut c, Some("home"), &probe).await,
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn an_attachment_is_never_paddockds_own_state() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    // Another chat's MCP token file, say: anything in the data directory's state.
    let probe = d.cfg.data_dir.join("tmp/mcp/other-file.json");
    std::fs::create_dir_all(probe.parent().unwrap()).unwrap();
    std::fs::write(&probe, format!("{{\"token\":\"{SECRET}\"}}\n")).unwrap();
    let link = d.dir.path().join("innocent.json");
    std::os::unix::fs::symlink(&probe, &link).unwrap();
    for path in [probe, link] {
        let path = path.to_string_lossy().into_owned();
        let sent = c
            .request(Request::ChatSend(paddock_proto::ChatSend {
                project_slug: String::new(),
                session_id: None,
                message: "what is this?".into(),
                model: None,
                preload_context: false,
                attachments: vec![paddock_proto::AttachmentUpload {
                    name: "a.json".into(),
                    path: Some(path.clone()),
                    data: None,
                }],
                isolation: None,
            }))
            .await;
        refused("an attachment", &path, sent);
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_clis_own_file_tools_are_denied_paddockds_state_without_asking() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    // Another chat's MCP token file, outside the root workspace (<data>/workspace).
    let probe = d.cfg.data_dir.join("tmp/mcp/other-file.json");
    std::fs::create_dir_all(probe.parent().unwrap()).unwrap();
    std::fs::write(&probe, format!("{{\"token\":\"{SECRET}\"}}\n")).unwrap();
    let script = format!(
        "fake:{}",
        serde_json::json!([
            {"tool": "Read", "input": {"file_path": probe}, "ask": true, "output": SECRET},
            {"text": "done"},
        ])
    );
    let sent = c.send_turn("", None, &script).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let denied = frames
        .iter()
        .find_map(|f| match &f.event {
            paddock_proto::ChatEvent::ToolCall(t) if t.name == "Read" => Some(t.clone()),
            _ => None,
        })
        .expect("the Read's result");
    assert!(denied.is_error, "{denied:?}");
    assert!(
        denied.output.contains("paddockd's own state") && !denied.output.contains("not yours"),
        "{denied:?}"
    );
    let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
        panic!("not approvals")
    };
    assert!(a.approvals.is_empty(), "nobody was asked: {a:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn no_project_runs_inside_paddockds_own_state() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    for path in [
        d.cfg.data_dir.join("tmp/mcp"),
        d.cfg.data_dir.join("state/inside"),
        d.cfg.data_dir.clone(),
    ] {
        let made = c
            .request(Request::ProjectCreate(ProjectCreate {
                slug: "nosy".into(),
                path: Some(path.to_string_lossy().into_owned()),
                ..Default::default()
            }))
            .await;
        refused("project:create", &path.to_string_lossy(), made);
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_projects_curated_files_are_not_read_through_a_symlink_out_of_it() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    // A notebook: its agents run in its folder, where OVERVIEW.md and CHANGELOG.md live.
    c.request(Request::ProjectCreate(ProjectCreate {
        slug: "nb".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .expect("project created");
    let outside = d.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    let meta = d.cfg.data_dir.join("projects/nb");
    for name in ["OVERVIEW.md", "CHANGELOG.md"] {
        std::os::unix::fs::symlink(outside.join("secret.txt"), meta.join(name)).unwrap();
    }
    let got = c
        .request(Request::ProjectOverviewRequest(paddock_proto::ProjectRef {
            slug: "nb".into(),
        }))
        .await;
    let shown = format!("{got:?}");
    assert!(!shown.contains("not yours"), "{shown}");
    d.stop().await.unwrap();
}
