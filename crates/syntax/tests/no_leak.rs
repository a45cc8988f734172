//! Parsing holds no memory after it returns: the grammar, built for each
//! parse, once had reference cycles (parsers declared ahead and used in
//! their own definitions) that leaked about 20 KB a parse, so a REPL
//! session or the fuzzer's parse target grew without bound. Its own test
//! binary, so that no other test allocates while this one counts.

use urchin_base::source::FileId;

#[global_allocator]
static ALLOC: urchin_base::mem::Counting = urchin_base::mem::Counting;

const PROGRAM: &str = "
module type field = { type t val zero: t val +: t -> t -> t }
module mk (F: field) = { def sum [n] (xs: [n]F.t) : F.t = loop a = F.zero for x in xs do a F.+ x }
module M = mk { type t = f64 def zero = 0f64 def (+) = (f64.+) }
def f [n] (xs: [n]f64) : [n * 1]f64 = map (\\(x: f64) -> x + 1) xs :> [n * 1]f64
local open M
";

#[test]
fn parsing_leaves_nothing_behind() {
    let parse_all = || {
        assert!(urchin_syntax::parse_program(PROGRAM, FileId(0)).is_ok());
        assert!(urchin_syntax::parse_program("def f = (", FileId(0)).is_err());
        assert!(urchin_syntax::parse_repl("let (a, b) = (1, 2)", FileId(0)).is_ok());
        assert!(urchin_syntax::parse_expr("\\x -> x : [2]i32", FileId(0)).is_ok());
        assert!(urchin_syntax::parse_type("[n * 2](i32 -> i32)", FileId(0)).is_ok());
    };
    // The first parse may set up what every later one shares.
    parse_all();
    let before = urchin_base::mem::live_bytes();
    for _ in 0..200 {
        parse_all();
    }
    let grown = urchin_base::mem::live_bytes().saturating_sub(before);
    assert!(grown < 4096, "200 parses left {grown} bytes allocated");
}
