//! Several hosts' answers as one: the merges the command line and the TUI share.

use paddock_proto::{History, RunSummary, SearchHit, SearchResults};

/// Every host's runs, newest first, cut to `limit` (what each host was given).
pub fn runs(lists: &[(String, History)], limit: Option<u32>) -> Vec<(String, RunSummary)> {
    let mut runs: Vec<(String, RunSummary)> = lists
        .iter()
        .flat_map(|(h, l)| l.runs.iter().map(move |r| (h.clone(), r.clone())))
        .collect();
    runs.sort_by(|a, b| b.1.started_at.cmp(&a.1.started_at));
    if let Some(limit) = limit {
        runs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    runs
}

/// Search results of several hosts as one, and the host of each hit.
pub struct MergedSearch {
    pub results: SearchResults,
    pub hosts: Vec<String>,
}

/// Merges by the daemons' own rank: more of the query in the title, then the latest activity
/// (each host's hits come in that order already, so this interleaves them).
pub fn search(lists: &[(String, SearchResults)], limit: Option<usize>) -> MergedSearch {
    let title_matches = |h: &SearchHit| {
        h.matches
            .iter()
            .filter(|m| m.field == paddock_proto::SearchField::Title)
            .count()
    };
    let mut hits: Vec<(usize, usize, &str, &SearchHit)> = Vec::new();
    for (host_index, (host, results)) in lists.iter().enumerate() {
        for hit in &results.hits {
            hits.push((host_index, title_matches(hit), host, hit));
        }
    }
    hits.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| b.3.updated_at.cmp(&a.3.updated_at))
            .then(a.0.cmp(&b.0))
    });
    if let Some(limit) = limit {
        hits.truncate(limit);
    }
    let indexing =
        lists
            .iter()
            .filter_map(|(_, r)| r.indexing)
            .reduce(|a, b| paddock_proto::SearchProgress {
                done: a.done + b.done,
                total: a.total + b.total,
            });
    MergedSearch {
        hosts: hits.iter().map(|h| h.2.to_owned()).collect(),
        results: SearchResults {
            query: lists
                .first()
                .map(|(_, r)| r.query.clone())
                .unwrap_or_default(),
            total: lists.iter().map(|(_, r)| r.total).sum(),
            indexing,
            hits: hits.into_iter().map(|h| h.3.clone()).collect(),
        },
    }
}
