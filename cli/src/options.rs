//! What several subcommands' options share: the clap glue that parses the cases' words
//! ([`words`]).

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use plume_cases::words::Words;

/// The value parser of an option that takes one of `T`'s words: clap lists the words (with
/// their help) in `--help` and in the usage error of a wrong word, as for a `ValueEnum`.
pub fn words<T: Words + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL.iter().map(|(_, word, help)| {
        // As clap shows a doc comment: on one line, without its closing period.
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        PossibleValue::new(*word).help(help.strip_suffix('.').unwrap_or(&help).to_string())
    });
    PossibleValuesParser::new(values)
        .map(|word| T::from_word(&word).expect("clap lets only the listed words through"))
}
