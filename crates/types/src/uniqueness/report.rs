//! The uniqueness errors, in Futhark's words (its compiler's messages,
//! which its error index explains at the anchor each note gives), with
//! the places involved and a help line saying how to fix the program.

use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;

/// Futhark's error index, where each of these errors is explained.
const INDEX: &str = "https://futhark.readthedocs.io/en/latest/error-index.html";

fn see(anchor: &str) -> String {
    format!("for more information, see {INDEX}#{anchor}")
}

/// Why a variable cannot be consumed.
pub(super) enum NotConsumable {
    /// A parameter not declared unique.
    Param { function: String },
    /// Bound outside the function being checked.
    FreeInFunction,
    /// Bound outside the loop whose body is being checked.
    FreeInLoop,
    /// A top-level constant.
    Global,
    /// A value bound at the prompt, read by a definition.
    Value,
    /// Anything, in a size expression.
    InSize,
}

/// `Using "b", but this was consumed.`: `used` is the variable read at
/// `at`, `culprit` (its alias, or itself) was consumed at `consumed_at`.
pub(super) fn use_after_consume(
    used: &str,
    culprit: &str,
    at: Span,
    consumed_at: Span,
) -> Diagnostic {
    let message = if used == culprit {
        format!("Using {used}, but this was consumed.")
    } else {
        format!("Using {used}, but {culprit}, which it aliases, was consumed.")
    };
    Diagnostic::ty(message, at)
        .with_label("used here")
        .with_secondary(consumed_at, format!("{culprit} is consumed here"))
        .with_note(see("use-after-consume"))
        .with_help(
            "after an in-place update, or a call with a unique parameter, nothing may read the array it consumed or an alias of it: consume a `copy` instead, or read what you need before",
        )
}

/// `Consuming variable "xs", which is not consumable.`
pub(super) fn not_consumable(
    culprit: &str,
    via: Option<&str>,
    why: NotConsumable,
    at: Span,
) -> Diagnostic {
    let mut d = Diagnostic::ty(
        format!("Consuming variable {culprit}, which is not consumable."),
        at,
    );
    d = match via {
        Some(v) => d.with_label(format!("this consumes {v}, which aliases {culprit}")),
        None => d.with_label(format!("this consumes {culprit}")),
    };
    let (note, help) = match why {
        NotConsumable::Param { function } => (
            format!("{culprit} is a parameter of {function} that is not declared unique"),
            "declare the parameter unique (`xs: *[]t`), so that callers hand the array over, or consume a `copy` of it".to_string(),
        ),
        NotConsumable::FreeInFunction => (
            format!("{culprit} is bound outside this function, which can only consume its unique parameters and what it binds itself"),
            "pass the array as a unique parameter, or consume a `copy` of it".to_string(),
        ),
        NotConsumable::FreeInLoop => (
            format!("{culprit} is bound outside this loop, whose body runs more than once"),
            "make the array a loop parameter (`loop (acc, xs) = (acc, xs) for ...`), or consume a `copy` of it".to_string(),
        ),
        NotConsumable::Global => (
            format!("{culprit} is a top-level constant, which nothing may consume"),
            "consume a `copy` of it".to_string(),
        ),
        NotConsumable::Value => (
            format!("{culprit} is a value bound at the prompt, which a definition may not consume"),
            "consume a `copy` of it, or pass it as a unique parameter".to_string(),
        ),
        NotConsumable::InSize => (
            "a size expression may not consume anything".to_string(),
            "compute the size from arrays it does not consume".to_string(),
        ),
    };
    d.with_note(note)
        .with_note(see("not-consumable"))
        .with_help(help)
}

/// Rule 1 of Futhark's higher-order uniqueness: a `let` binding a function
/// may not consume.
pub(super) fn let_contains_consumption(
    ty: &str,
    at: Span,
    consumed: &str,
    consumed_at: Span,
) -> Diagnostic {
    Diagnostic::ty(
        format!("Let-bound expression of higher-order type `{ty}` contains consumption."),
        at,
    )
    .with_label("this binds a function")
    .with_secondary(consumed_at, format!("{consumed} is consumed here"))
    .with_note(see("contains-consumption"))
    .with_help(
        "a function value may be applied any number of times, but what it consumed is gone after the first: apply the function where it is made, or consume a `copy`",
    )
}

/// Rule 2: a function that consumes may not be an argument.
pub(super) fn consuming_argument(function: &str, param: Option<&str>, at: Span) -> Diagnostic {
    let what = match param {
        Some(p) => format!("it consumes its parameter \"{p}\""),
        None => "it consumes an argument".to_string(),
    };
    Diagnostic::ty(
        format!("Argument of functional type contains consumption: {function} is a consuming function."),
        at,
    )
    .with_label(what)
    .with_note(see("consuming-argument"))
    .with_help(
        "a function passed as an argument may be applied any number of times, so it must not consume its argument: make the parameter non-unique and consume a `copy` inside",
    )
}

/// A function argument whose making consumed something.
pub(super) fn argument_contains_consumption(
    at: Span,
    consumed: &str,
    consumed_at: Span,
) -> Diagnostic {
    Diagnostic::ty("Argument of functional type contains consumption.", at)
        .with_label("this function value is passed as an argument")
        .with_secondary(consumed_at, format!("{consumed} is consumed here"))
        .with_note(see("consuming-argument"))
        .with_help("apply the function where it is made, or consume a `copy`")
}

/// A function passed where the parameter's type promises a unique result.
pub(super) fn result_not_unique(function: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("The function passed to {function} must return a unique value, but its result may alias other values."),
        at,
    )
    .with_label("its result is not declared unique")
    .with_help("declare the function's result unique (`: *[n]t`), returning a `copy` if needed")
}

/// A consumed argument that another argument of the same call aliases.
pub(super) fn argument_consumed(function: &str, at: Span, other: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("Argument is consumed, but another argument of {function} aliases it."),
        at,
    )
    .with_label("this argument is consumed")
    .with_secondary(other, "this argument aliases it")
    .with_help("pass a `copy` of one of them")
}

/// A tuple passed for a consuming parameter whose components alias each
/// other.
pub(super) fn self_aliased_argument(at: Span) -> Diagnostic {
    Diagnostic::ty(
        "Argument passed for consuming parameter is self-aliased.",
        at,
    )
    .with_label("two components of this argument alias each other")
    .with_note(see("self-aliasing-arg"))
    .with_help("pass a `copy` of one of the components")
}

/// `a with [i] = v` where `v` aliases `a`.
pub(super) fn update_aliases_source(array: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("The value written by this in-place update aliases {array}, the array it updates."),
        at,
    )
    .with_label("this value aliases the array")
    .with_help("write a `copy` of the value")
}

/// A unique result that aliases what the function may not consume.
pub(super) fn return_aliased(function: &str, culprit: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("Unique-typed return value of {function} is aliased to {culprit}, which is not consumable."),
        at,
    )
    .with_label(format!("this may be {culprit}, or share memory with it"))
    .with_note(see("return-aliased"))
    .with_help(format!(
        "return a `copy`, or take {culprit} as a unique parameter"
    ))
}

/// Two components of a result, one of them unique, that alias each other.
pub(super) fn unique_component_aliased(function: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("A unique-typed component of the return value of {function} is aliased to some other component."),
        at,
    )
    .with_label("two components of this value may share memory")
    .with_note(see("unique-return-aliased"))
    .with_help("return a `copy` of one of them")
}

/// A function whose result aliases a top-level constant.
pub(super) fn result_aliases_global(global: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("Function result aliases the free variable {global}."),
        at,
    )
    .with_label(format!("this may be {global}, or share memory with it"))
    .with_note(see("alias-free-variable"))
    .with_help(format!("return a `copy` of {global}"))
}

/// A top-level constant declared unique.
pub(super) fn unique_constant(name: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("The top-level constant \"{name}\" may not have a unique type."),
        at,
    )
    .with_label("declared unique here")
    .with_help("a constant is shared by everything that reads it, so nothing may consume it: remove the `*`")
}

/// A consuming loop parameter whose next value aliases what the loop may
/// not consume.
pub(super) fn loop_param_aliases(param: &str, culprit: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("Return value for consuming loop parameter \"{param}\" aliases {culprit}."),
        at,
    )
    .with_label(format!(
        "the next value of \"{param}\" may share memory with {culprit}"
    ))
    .with_note(see("consuming-loop-param-aliases"))
    .with_help("the next iteration would consume it: return a `copy`")
}

/// Two loop parameters, one consuming, whose next values alias each other.
pub(super) fn loop_params_alias(param: &str, other_consumed: bool, at: Span) -> Diagnostic {
    let (message, anchor) = if other_consumed {
        (
            format!(
                "Return value for loop parameter \"{param}\" aliases other consumed loop parameter."
            ),
            "loop-parameter-aliases-other",
        )
    } else {
        (
            format!(
                "Return value for consuming loop parameter \"{param}\" aliases previously returned value."
            ),
            "aliases-previously-returned",
        )
    };
    Diagnostic::ty(message, at)
        .with_label("two of the values this returns may share memory")
        .with_note(see(anchor))
        .with_help("return a `copy` of one of them")
}
