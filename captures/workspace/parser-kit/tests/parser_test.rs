use parser_kit::{eval, parse};

#[test]
fn precedence() {
    assert_eq!(eval(&parse("1 + 2 * 3").unwrap()), 7.0);
}

#[test]
fn parentheses() {
    assert_eq!(eval(&parse("(1 + 2) * 3").unwrap()), 9.0);
}
