pub mod eval;
pub mod lexer;
pub mod parser;

pub use eval::eval;
pub use parser::{parse, Expr, ParseError};
