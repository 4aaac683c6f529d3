//! The lineage walk: from a file to the step that last wrote it, that step's inputs, the steps
//! that produced those inputs' versions, and so on; bounded, one version per path.
//!
//! A producing step's inputs are what it read itself (a Bash command line's files) and what
//! its chat read before it (the chat's context: a Read, then a Write). Each input's version is
//! the one produced at or before the step that read it.

use std::collections::{HashSet, VecDeque};

use super::steps::{FileRecord, Role, StepRecord};

/// The walk's bounds.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub max_nodes: usize,
    pub max_hops: u32,
}

/// The document's bounds: 60 nodes, 12 hops.
pub const BOUNDS: Bounds = Bounds {
    max_nodes: 60,
    max_hops: 12,
};

/// One file version reached.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    pub path: String,
    pub hops: u32,
    pub producer: Option<(&'a StepRecord, &'a FileRecord)>,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Walk<'a> {
    pub nodes: Vec<Node<'a>>,
    pub truncated: bool,
}

/// The latest write of `path` among `steps` (in time order), ending at or before `at` when
/// given.
pub fn latest_write<'a>(
    steps: &'a [StepRecord],
    path: &str,
    at: Option<&str>,
) -> Option<(&'a StepRecord, &'a FileRecord)> {
    steps
        .iter()
        .rev()
        .filter(|s| at.is_none_or(|at| s.ended_at.as_str() <= at))
        .find_map(|s| {
            s.files
                .iter()
                .rev()
                .find(|f| f.role == Role::Write && f.path == path)
                .map(|f| (s, f))
        })
}

/// What a producing step used: its own reads, then its chat's earlier reads, newest first,
/// each with the time it was read (the version wanted is the one produced by then).
pub fn inputs_of(
    steps: &[StepRecord],
    producer: &StepRecord,
    own_path: &str,
) -> Vec<(String, String)> {
    let mut seen = HashSet::new();
    seen.insert(own_path.to_owned());
    let mut out = Vec::new();
    let reads = |s: &StepRecord| {
        s.files
            .iter()
            .filter(|f| f.role == Role::Read)
            .map(|f| (f.path.clone(), s.started_at.clone()))
            .collect::<Vec<_>>()
    };
    for (path, at) in reads(producer) {
        if seen.insert(path.clone()) {
            out.push((path, at));
        }
    }
    for earlier in steps.iter().rev().filter(|s| {
        s.session_id == producer.session_id
            && s.step_id != producer.step_id
            && s.ended_at <= producer.started_at
    }) {
        for (path, at) in reads(earlier) {
            if seen.insert(path.clone()) {
                out.push((path, at));
            }
        }
    }
    out
}

/// Walks from `path` (its newest version) breadth first.
pub fn walk<'a>(steps: &'a [StepRecord], path: &str, bounds: Bounds) -> Walk<'a> {
    let mut nodes = Vec::new();
    let mut truncated = false;
    let mut visited = HashSet::from([path.to_owned()]);
    let mut queue: VecDeque<(String, Option<String>, u32)> =
        VecDeque::from([(path.to_owned(), None, 0)]);
    while let Some((path, at, hops)) = queue.pop_front() {
        if nodes.len() >= bounds.max_nodes {
            truncated = true;
            break;
        }
        let producer = latest_write(steps, &path, at.as_deref());
        let mut inputs = Vec::new();
        if let Some((step, _)) = producer {
            let found = inputs_of(steps, step, &path);
            if !found.is_empty() && hops >= bounds.max_hops {
                truncated = true;
            } else {
                for (input, read_at) in found {
                    if visited.insert(input.clone()) {
                        queue.push_back((input.clone(), Some(read_at), hops + 1));
                    }
                    inputs.push(input);
                }
            }
        }
        nodes.push(Node {
            path,
            hops,
            producer,
            inputs,
        });
    }
    Walk { nodes, truncated }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use paddock_proto::FileEdge;

    fn time(n: u32) -> String {
        format!("2026-11-03T09:{:02}:{:02}.000Z", n / 60, n % 60)
    }

    fn edge(path: &str, role: Role) -> FileRecord {
        FileRecord {
            path: path.into(),
            role,
            edge: FileEdge::Observed,
            change: if role == Role::Write { "wrote" } else { "read" }.into(),
            hash: None,
            unhashed: false,
        }
    }

    /// A step at time `n` (started at 2n, ended at 2n+1) of its own session.
    fn step(n: u32, session: &str, files: Vec<FileRecord>) -> StepRecord {
        StepRecord {
            step_id: format!("job:{n}"),
            session_id: session.into(),
            job_id: "job".into(),
            tool_use_id: format!("toolu_{n}"),
            tool: "Bash".into(),
            started_at: time(2 * n),
            ended_at: time(2 * n + 1),
            is_error: false,
            no_result: false,
            args_preview: "{}".into(),
            args_truncated: false,
            files,
            truncated_edges: 0,
            scan: None,
            overlapped: false,
            environment: None,
            specialist: None,
        }
    }

    /// f0 is a user file; step i reads f(i) and writes f(i+1), each in its own session.
    fn chain(len: u32) -> Vec<StepRecord> {
        (0..len)
            .map(|i| {
                step(
                    i,
                    &format!("s{i}"),
                    vec![
                        edge(&format!("f{i}"), Role::Read),
                        edge(&format!("f{}", i + 1), Role::Write),
                    ],
                )
            })
            .collect()
    }

    #[test]
    fn a_short_chain_ends_in_a_missing_origin() {
        let steps = chain(3);
        let walk = walk(&steps, "f3", BOUNDS);
        assert!(!walk.truncated);
        let paths: Vec<_> = walk.nodes.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(paths, ["f3", "f2", "f1", "f0"]);
        assert_eq!(walk.nodes[0].inputs, ["f2"]);
        assert!(walk.nodes[3].producer.is_none(), "f0 is the user's");
        assert_eq!(walk.nodes[3].hops, 3);
    }

    #[test]
    fn the_walk_stops_at_twelve_hops() {
        let steps = chain(20);
        let walk = walk(&steps, "f20", BOUNDS);
        assert!(walk.truncated);
        assert_eq!(walk.nodes.len(), 13, "hops 0..=12");
        assert_eq!(walk.nodes.last().unwrap().hops, 12);
        assert!(walk.nodes.last().unwrap().inputs.is_empty());
    }

    #[test]
    fn the_walk_stops_at_sixty_nodes() {
        // One step read 100 user files and wrote out.txt: a wide, shallow lineage.
        let mut files: Vec<_> = (0..100)
            .map(|i| edge(&format!("in{i}"), Role::Read))
            .collect();
        files.push(edge("out.txt", Role::Write));
        let steps = vec![step(1, "s", files)];
        let walk = walk(&steps, "out.txt", BOUNDS);
        assert!(walk.truncated);
        assert_eq!(walk.nodes.len(), 60);
        assert_eq!(walk.nodes[0].inputs.len(), 100);
    }

    #[test]
    fn an_input_is_the_version_produced_before_it_was_read() {
        // s1 writes a (t1), s2 reads a (t2) and writes b (t3), s3 rewrites a (t4).
        let steps = vec![
            step(1, "s1", vec![edge("a", Role::Write)]),
            step(2, "s2", vec![edge("a", Role::Read)]),
            step(3, "s2", vec![edge("b", Role::Write)]),
            step(4, "s3", vec![edge("a", Role::Write)]),
        ];
        let walk = walk(&steps, "b", BOUNDS);
        assert_eq!(walk.nodes.len(), 2);
        assert_eq!(
            walk.nodes[0].inputs,
            ["a"],
            "the chat read a before writing b"
        );
        let (producer, _) = walk.nodes[1].producer.unwrap();
        assert_eq!(producer.session_id, "s1", "not s3's later version");
        // The newest version of a is s3's.
        assert_eq!(latest_write(&steps, "a", None).unwrap().0.session_id, "s3");
    }

    #[test]
    fn one_version_per_path_keeps_cycles_finite() {
        let steps = vec![
            step(1, "s", vec![edge("a", Role::Read), edge("b", Role::Write)]),
            step(2, "s", vec![edge("b", Role::Read), edge("a", Role::Write)]),
        ];
        let walk = walk(&steps, "a", BOUNDS);
        assert!(!walk.truncated);
        assert_eq!(walk.nodes.len(), 2);
    }
}
