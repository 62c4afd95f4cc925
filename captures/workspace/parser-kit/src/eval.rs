use crate::lexer::Token;
use crate::parser::Expr;

/// Folds an expression tree into its value.
pub fn eval(expr: &Expr) -> f64 {
    match expr {
        Expr::Number(n) => *n,
        Expr::Binary(l, op, r) => {
            let (l, r) = (eval(l), eval(r));
            match op {
                Token::Plus => l + r,
                Token::Minus => l - r,
                Token::Star => l * r,
                Token::Slash => l / r,
                _ => unreachable!("not an operator: {op:?}"),
            }
        }
    }
}
