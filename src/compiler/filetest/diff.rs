//! A small line diff (longest common subsequence) printed in unified style: `-` expected,
//! `+` actual, two lines of context, `@@ -a +b @@` hunk headers (line numbers).

enum Edit<'a> {
    Same(&'a str),
    Del(&'a str),
    Add(&'a str),
}

fn edits<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Edit<'a>> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Edit::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(Edit::Del(a[i]));
            i += 1;
        } else {
            out.push(Edit::Add(b[j]));
            j += 1;
        }
    }
    out
}

const CONTEXT: usize = 2;

/// The diff from `expected` to `actual` (empty when equal); hunk headers count the expected
/// lines from `first_line` (their line number in the file) and the actual ones from 1.
pub fn diff(expected: &str, actual: &str, first_line: usize) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let es = edits(&a, &b);
    let changed: Vec<bool> = es.iter().map(|e| !matches!(e, Edit::Same(_))).collect();
    let show: Vec<bool> = (0..es.len())
        .map(|k| (k.saturating_sub(CONTEXT)..(k + CONTEXT + 1).min(es.len())).any(|x| changed[x]))
        .collect();
    let mut out = String::new();
    let (mut la, mut lb) = (first_line, 1);
    let mut in_hunk = false;
    for (k, e) in es.iter().enumerate() {
        if show[k] {
            if !in_hunk {
                out.push_str(&format!("@@ -{la} +{lb} @@\n"));
                in_hunk = true;
            }
            match e {
                Edit::Same(l) => out.push_str(&format!("  {l}\n")),
                Edit::Del(l) => out.push_str(&format!("- {l}\n")),
                Edit::Add(l) => out.push_str(&format!("+ {l}\n")),
            }
        } else {
            in_hunk = false;
        }
        match e {
            Edit::Same(_) => {
                la += 1;
                lb += 1;
            }
            Edit::Del(_) => la += 1,
            Edit::Add(_) => lb += 1,
        }
    }
    out
}

#[test]
fn diff_shows_changed_lines_with_context() {
    let d = diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n", 11);
    assert_eq!(d, "@@ -12 +2 @@\n  b\n  c\n- d\n+ X\n  e\n  f\n");
    assert_eq!(diff("same\n", "same\n", 1), "");
}
