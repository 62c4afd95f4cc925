/// A token of the expression language.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Plus,
    Minus,
    Star,
    Slash,
    Open,
    Close,
}

/// Splits `text` into tokens; unknown characters are skipped.
pub fn lex(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '0'..='9' | '.' => {
                let mut digits = String::new();
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_digit() || d == '.' {
                        digits.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Number(digits.parse().unwrap()));
                continue;
            }
            '+' => out.push(Token::Plus),
            '-' => out.push(Token::Minus),
            '*' => out.push(Token::Star),
            '/' => out.push(Token::Slash),
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            _ => {}
        }
        chars.next();
    }
    out
}
