use crate::lexer::{lex, Token};

/// An expression tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    Binary(Box<Expr>, Token, Box<Expr>),
}

/// Why a text is not an expression.
#[derive(Debug, PartialEq)]
pub enum ParseError {
    UnexpectedEnd,
    Unexpected(Token),
}

/// Parses `text` into an expression tree.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    let tokens = lex(text);
    let mut pos = 0;
    let expr = sum(&tokens, &mut pos)?;
    match tokens.get(pos) {
        None => Ok(expr),
        Some(t) => Err(ParseError::Unexpected(t.clone())),
    }
}

fn sum(tokens: &[Token], pos: &mut usize) -> Result<Expr, ParseError> {
    let mut left = product(tokens, pos)?;
    while let Some(op @ (Token::Plus | Token::Minus)) = tokens.get(*pos) {
        *pos += 1;
        let right = product(tokens, pos)?;
        left = Expr::Binary(Box::new(left), op.clone(), Box::new(right));
    }
    Ok(left)
}

fn product(tokens: &[Token], pos: &mut usize) -> Result<Expr, ParseError> {
    let mut left = atom(tokens, pos)?;
    while let Some(op @ (Token::Star | Token::Slash)) = tokens.get(*pos) {
        *pos += 1;
        let right = atom(tokens, pos)?;
        left = Expr::Binary(Box::new(left), op.clone(), Box::new(right));
    }
    Ok(left)
}

fn atom(tokens: &[Token], pos: &mut usize) -> Result<Expr, ParseError> {
    let token = tokens.get(*pos).ok_or(ParseError::UnexpectedEnd)?;
    *pos += 1;
    match token {
        Token::Number(n) => Ok(Expr::Number(*n)),
        Token::Open => {
            let inner = sum(tokens, pos)?;
            match tokens.get(*pos) {
                Some(Token::Close) => {
                    *pos += 1;
                    Ok(inner)
                }
                Some(t) => Err(ParseError::Unexpected(t.clone())),
                None => Err(ParseError::UnexpectedEnd),
            }
        }
        t => Err(ParseError::Unexpected(t.clone())),
    }
}
