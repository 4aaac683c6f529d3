//! `files:list` and `files:read`: a project's directory for a file browser — entries sorted
//! directories first, hidden names only when asked, bounded listings, text capped, binary files
//! flagged, and every way out of the project (`..`, absolute paths, symlinks) refused.

use paddock_proto::{
    ErrorBody, ErrorCode, FileListing, FileText, FilesList, FilesRead, Reply, Request,
};

use crate::harness::*;

async fn list(
    c: &mut RawClient,
    path: &str,
    hidden: bool,
    limit: Option<u32>,
) -> Result<FileListing, ErrorBody> {
    c.request(Request::FilesList(FilesList {
        project_slug: "tree".into(),
        path: path.into(),
        hidden,
        limit,
    }))
    .await
    .map(|r| match r {
        Reply::FileListing(l) => l,
        other => panic!("expected a listing, got {other:?}"),
    })
}

async fn read(c: &mut RawClient, path: &str, max: Option<u64>) -> Result<FileText, ErrorBody> {
    c.request(Request::FilesRead(FilesRead {
        project_slug: "tree".into(),
        path: path.into(),
        max_bytes: max,
    }))
    .await
    .map(|r| match r {
        Reply::FileText(t) => t,
        other => panic!("expected a file's text, got {other:?}"),
    })
}

fn names(l: &FileListing) -> Vec<String> {
    l.entries
        .iter()
        .map(|e| {
            if e.dir {
                format!("{}/", e.name)
            } else {
                e.name.clone()
            }
        })
        .collect()
}

/// A project directory with sources, hidden files, a `.git`, an inside and an escaping symlink.
fn tree(d: &TestDaemon) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = d.dir.path().join("tree");
    let outside = d.dir.path().join("outside");
    std::fs::create_dir_all(dir.join("src/auth")).unwrap();
    std::fs::create_dir_all(dir.join(".git/objects")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "not yours\n").unwrap();
    std::fs::write(dir.join("README.md"), "# Tree\n").unwrap();
    std::fs::write(dir.join(".env"), "TOKEN=1\n").unwrap();
    std::fs::write(dir.join("src/auth/cookie.ts"), "export const A = 1;\n").unwrap();
    std::fs::write(dir.join("src/main.ts"), "main();\n").unwrap();
    std::os::unix::fs::symlink("src/main.ts", dir.join("entry.ts")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("escape")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), dir.join("secret.txt")).unwrap();
    (dir, outside)
}

#[tokio::test]
async fn listing_sorts_dirs_first_and_hides_dotfiles_unless_asked() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, _) = tree(&d);
    create_project(&mut c, "tree", &dir).await;

    let top = list(&mut c, "", false, None).await.unwrap();
    assert_eq!(top.path, "");
    assert!(!top.truncated);
    assert_eq!(
        names(&top),
        ["src/", "README.md", "entry.ts", "escape", "secret.txt"]
    );
    let readme = &top.entries[1];
    assert_eq!(readme.size, 7);
    assert!(readme.mtime.is_some());
    // A symlink inside the project is described by its target; escaping ones are flagged.
    let entry = &top.entries[2];
    assert!(
        entry.symlink && !entry.outside && entry.size == 8,
        "{entry:?}"
    );
    for e in &top.entries[3..] {
        assert!(e.symlink && e.outside && !e.dir && e.size == 0, "{e:?}");
    }

    let all = list(&mut c, "", true, None).await.unwrap();
    assert_eq!(
        names(&all),
        [
            ".git/",
            "src/",
            ".env",
            "README.md",
            "entry.ts",
            "escape",
            "secret.txt"
        ]
    );

    let sub = list(&mut c, "./src/", false, None).await.unwrap();
    assert_eq!(sub.path, "src");
    assert_eq!(names(&sub), ["auth/", "main.ts"]);
    let auth = list(&mut c, "src/auth", false, None).await.unwrap();
    assert_eq!(names(&auth), ["cookie.ts"]);
}

#[tokio::test]
async fn listing_is_bounded() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, _) = tree(&d);
    let many = dir.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..30 {
        std::fs::write(many.join(format!("f{i:02}.txt")), "x").unwrap();
    }
    create_project(&mut c, "tree", &dir).await;

    let cut = list(&mut c, "many", false, Some(10)).await.unwrap();
    assert!(cut.truncated);
    assert_eq!(cut.entries.len(), 10);
    assert_eq!(cut.entries[0].name, "f00.txt");
    assert_eq!(cut.entries[9].name, "f09.txt");
    let whole = list(&mut c, "many", false, None).await.unwrap();
    assert!(!whole.truncated);
    assert_eq!(whole.entries.len(), 30);
    // A limit over the cap is the cap.
    let capped = list(&mut c, "many", false, Some(u32::MAX)).await.unwrap();
    assert_eq!(capped.entries.len(), 30);
}

#[tokio::test]
async fn paths_out_of_the_project_are_refused() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, outside) = tree(&d);
    create_project(&mut c, "tree", &dir).await;

    let abs = outside.to_string_lossy().into_owned();
    let secret = outside.join("secret.txt").to_string_lossy().into_owned();
    for path in [
        "..",
        "src/../..",
        "../outside",
        abs.as_str(),
        "escape",
        "escape/",
    ] {
        let e = list(&mut c, path, false, None).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{path}: {e:?}");
    }
    for path in [
        "../outside/secret.txt",
        secret.as_str(),
        "secret.txt",
        "escape/secret.txt",
        "src/../README.md",
    ] {
        let e = read(&mut c, path, None).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{path}: {e:?}");
    }
    // Nothing of the outside leaked into a message.
    let e = read(&mut c, "escape/secret.txt", None).await.unwrap_err();
    assert!(!e.message.contains("not yours"), "{e:?}");

    // Missing paths, a file listed, a directory read.
    let e = list(&mut c, "nope", false, None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    let e = read(&mut c, "nope.txt", None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    let e = list(&mut c, "README.md", false, None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    let e = read(&mut c, "src", None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    // An unknown project.
    let e = c
        .request(Request::FilesList(FilesList {
            project_slug: "nope".into(),
            path: String::new(),
            hidden: false,
            limit: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
}

#[tokio::test]
async fn reading_text_binary_and_big_files() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, _) = tree(&d);
    std::fs::write(dir.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    std::fs::write(dir.join("latin1.txt"), b"caf\xe9\n").unwrap();
    // 2 MiB of text, with a two-byte character straddling the 1 MiB cap.
    let mut big = "a".repeat(1024 * 1024 - 1);
    big.push('é');
    big.push_str(&"b".repeat(1024 * 1024));
    std::fs::write(dir.join("big.txt"), &big).unwrap();
    create_project(&mut c, "tree", &dir).await;

    let t = read(&mut c, "src/auth/cookie.ts", None).await.unwrap();
    assert_eq!(t.path, "src/auth/cookie.ts");
    assert_eq!(t.text, "export const A = 1;\n");
    assert_eq!(t.size, 20);
    assert!(!t.binary && !t.truncated && t.mtime.is_some());
    // Through a symlink inside the project.
    let t = read(&mut c, "entry.ts", None).await.unwrap();
    assert_eq!(t.text, "main();\n");

    for path in ["logo.png", "latin1.txt"] {
        let t = read(&mut c, path, None).await.unwrap();
        assert!(
            t.binary && t.text.is_empty() && !t.truncated,
            "{path}: {t:?}"
        );
    }

    let t = read(&mut c, "big.txt", None).await.unwrap();
    assert!(t.truncated && !t.binary);
    assert_eq!(t.size, big.len() as u64);
    assert_eq!(
        t.text.len(),
        1024 * 1024 - 1,
        "cut before the split character"
    );
    let t = read(&mut c, "big.txt", Some(10)).await.unwrap();
    assert!(t.truncated);
    assert_eq!(t.text, "aaaaaaaaaa");
    // The frame carrying the capped text fits the wire.
    let t = read(&mut c, "big.txt", Some(u64::MAX)).await.unwrap();
    assert!(t.truncated);
}
