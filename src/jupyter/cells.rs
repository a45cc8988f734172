//! Splitting a notebook cell into REPL inputs. An input starts at a line
//! that is not indented and takes the indented lines after it (a
//! definition's body), the lines that complete it while it is incomplete
//! (as at the prompt), and the definition below a comment (so that a doc
//! comment stays with its definition). `:{` ... `:}` encloses one input, as
//! at the prompt.

/// One input: its text and the index of its first line in the cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub first_line: usize,
    pub text: String,
}

pub fn inputs(cell: &str, incomplete: &dyn Fn(&str) -> bool) -> Vec<Input> {
    let lines: Vec<&str> = cell.lines().collect();
    let blank = |i: usize| lines[i].trim().is_empty();
    let next_nonblank = |from: usize| (from..lines.len()).find(|&i| !blank(i));
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(start) = next_nonblank(i) {
        if lines[start].trim() == ":{" {
            let end = (start + 1..lines.len())
                .find(|&j| lines[j].trim() == ":}")
                .unwrap_or(lines.len());
            out.push(Input {
                first_line: start + 1,
                text: lines[(start + 1).min(end)..end].join("\n"),
            });
            i = end + 1;
            continue;
        }
        let mut end = start + 1;
        while let Some(k) = next_nonblank(end) {
            let so_far = lines[start..end].join("\n");
            let only_comments = lines[start..end]
                .iter()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with("--"));
            let indented = lines[k].starts_with([' ', '\t']);
            // A `match` goes on while its cases do.
            let case = lines[k].trim_start().starts_with("case ");
            if indented || only_comments || case || incomplete(&so_far) {
                end = k + 1;
            } else {
                break;
            }
        }
        out.push(Input {
            first_line: start,
            text: lines[start..end].join("\n"),
        });
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(cell: &str) -> Vec<(usize, String)> {
        let incomplete = |t: &str| t.trim_end().ends_with('=');
        inputs(cell, &incomplete)
            .into_iter()
            .map(|i| (i.first_line, i.text))
            .collect()
    }

    #[test]
    fn definitions_expressions_and_commands() {
        let cell = "def f (x: f64) =\n  x * x\n\n\nf 3\n:type f\n";
        assert_eq!(
            split(cell),
            vec![
                (0, "def f (x: f64) =\n  x * x".into()),
                (4, "f 3".into()),
                (5, ":type f".into())
            ]
        );
    }

    #[test]
    fn incomplete_inputs_and_blank_lines_inside_bodies() {
        let cell = "def g (x: f64) =\nx + 1\ndef h (x: f64) =\n  let y = x\n\n  in y\nh 2";
        assert_eq!(
            split(cell),
            vec![
                (0, "def g (x: f64) =\nx + 1".into()),
                (2, "def h (x: f64) =\n  let y = x\n\n  in y".into()),
                (6, "h 2".into())
            ]
        );
    }

    #[test]
    fn comments_stay_with_what_follows_and_blocks_are_one_input() {
        let cell = "-- | Doc.\ndef k = 1\n:{\ndef a = 1\n\ndef b = 2\n:}\nk";
        assert_eq!(
            split(cell),
            vec![
                (0, "-- | Doc.\ndef k = 1".into()),
                (3, "def a = 1\n\ndef b = 2".into()),
                (7, "k".into())
            ]
        );
        assert_eq!(split(":{\ndef a = 1"), vec![(1, "def a = 1".into())]);
        assert_eq!(split("  \n\n"), vec![]);
    }
}
