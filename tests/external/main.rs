//! The tests that need something from outside the repository: Futhark's
//! test programs and the acceptance corpus under `../shared`, Python's
//! Jupyter, Futhark-server and LSP clients, Node.js and a browser for the
//! playground. Each case names what it needs and is reported as ignored
//! where that is missing (`urchin_test_env::harness`), or fails where
//! `URCHIN_REQUIRE_DATA` is set, as in CI. The tests that need nothing but
//! the repository are in `tests/it`.

mod clients;
mod corpus;
mod futhark;
mod futhark_data;
mod futhark_format;
mod notebook;
mod prelude_names;
mod web;

fn main() {
    let trials = [
        clients::trials(),
        corpus::trials(),
        futhark::trials(),
        futhark_data::trials(),
        futhark_format::trials(),
        notebook::trials(),
        prelude_names::trials(),
        web::trials(),
    ];
    urchin_test_env::harness::run(trials.into_iter().flatten().collect())
}
