//! [`Value`]: what a key holds, borrowed from the buffer.

use alloc::string::String;
use alloc::vec::Vec;

/// A value stored in a [`DataComponent`](super::DataComponent).
///
/// Reads borrow from the component's buffer (zero-copy): `Str` and `Floats` point
/// into it. Setting a value takes anything that converts into a `Value`: `bool`,
/// `f32`, `i32`, `&str`, `&String`, `&[f32]`, `&[f32; N]` and `&Vec<f32>`.
///
/// ```
/// use idtable::data::Value;
///
/// assert_eq!(Value::from(true), Value::Bool(true));
/// assert_eq!(Value::from(1.5_f32), Value::Float(1.5));
/// assert_eq!(Value::from(42), Value::Int(42));
/// assert_eq!(Value::from("hi"), Value::Str("hi"));
/// assert_eq!(Value::from(&[1.0_f32, 2.0]), Value::Floats(&[1.0, 2.0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// A boolean.
    Bool(bool),
    /// A 32-bit float.
    Float(f32),
    /// A 32-bit signed integer (levels, gold, counts), held in the value word
    /// like a float. New in format version 2.
    Int(i32),
    /// A string (at most 65 535 bytes; the whole buffer is limited too).
    Str(&'a str),
    /// An array of 32-bit floats.
    Floats(&'a [f32]),
}

impl<'a> Value<'a> {
    /// The boolean, if this is a `Bool`.
    ///
    /// ```
    /// use idtable::data::Value;
    ///
    /// assert_eq!(Value::Bool(true).as_bool(), Some(true));
    /// assert_eq!(Value::Float(1.0).as_bool(), None);
    /// ```
    #[must_use]
    pub const fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The float, if this is a `Float`.
    ///
    /// ```
    /// use idtable::data::Value;
    ///
    /// assert_eq!(Value::Float(2.5).as_f32(), Some(2.5));
    /// assert_eq!(Value::Bool(true).as_f32(), None);
    /// ```
    #[must_use]
    pub const fn as_f32(&self) -> Option<f32> {
        match *self {
            Value::Float(x) => Some(x),
            _ => None,
        }
    }

    /// The integer, if this is an `Int`.
    ///
    /// ```
    /// use idtable::data::Value;
    ///
    /// assert_eq!(Value::Int(-3).as_i32(), Some(-3));
    /// assert_eq!(Value::Float(-3.0).as_i32(), None);
    /// ```
    #[must_use]
    pub const fn as_i32(&self) -> Option<i32> {
        match *self {
            Value::Int(x) => Some(x),
            _ => None,
        }
    }

    /// The string, if this is a `Str`.
    ///
    /// ```
    /// use idtable::data::Value;
    ///
    /// assert_eq!(Value::Str("x").as_str(), Some("x"));
    /// assert_eq!(Value::Floats(&[]).as_str(), None);
    /// ```
    #[must_use]
    pub const fn as_str(&self) -> Option<&'a str> {
        match *self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The float array, if this is `Floats`.
    ///
    /// ```
    /// use idtable::data::Value;
    ///
    /// assert_eq!(Value::Floats(&[1.0]).as_f32s(), Some(&[1.0_f32][..]));
    /// assert_eq!(Value::Str("").as_f32s(), None);
    /// ```
    #[must_use]
    pub const fn as_f32s(&self) -> Option<&'a [f32]> {
        match *self {
            Value::Floats(xs) => Some(xs),
            _ => None,
        }
    }
}

impl From<bool> for Value<'_> {
    /// ```
    /// use idtable::data::Value;
    /// assert_eq!(Value::from(false), Value::Bool(false));
    /// ```
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<f32> for Value<'_> {
    /// ```
    /// use idtable::data::Value;
    /// assert_eq!(Value::from(0.5_f32), Value::Float(0.5));
    /// ```
    fn from(x: f32) -> Self {
        Value::Float(x)
    }
}

impl From<i32> for Value<'_> {
    /// ```
    /// use idtable::data::Value;
    /// assert_eq!(Value::from(-5), Value::Int(-5));
    /// ```
    fn from(x: i32) -> Self {
        Value::Int(x)
    }
}

impl<'a> From<&'a str> for Value<'a> {
    /// ```
    /// use idtable::data::Value;
    /// assert_eq!(Value::from("The One"), Value::Str("The One"));
    /// ```
    fn from(s: &'a str) -> Self {
        Value::Str(s)
    }
}

impl<'a> From<&'a String> for Value<'a> {
    /// ```
    /// use idtable::data::Value;
    /// let s = String::from("The One");
    /// assert_eq!(Value::from(&s), Value::Str("The One"));
    /// ```
    fn from(s: &'a String) -> Self {
        Value::Str(s)
    }
}

impl<'a> From<&'a [f32]> for Value<'a> {
    /// ```
    /// use idtable::data::Value;
    /// let xs = [0.0_f32, 0.5];
    /// assert_eq!(Value::from(&xs[..]), Value::Floats(&[0.0, 0.5]));
    /// ```
    fn from(xs: &'a [f32]) -> Self {
        Value::Floats(xs)
    }
}

impl<'a, const N: usize> From<&'a [f32; N]> for Value<'a> {
    /// ```
    /// use idtable::data::Value;
    /// assert_eq!(Value::from(&[0.0_f32, 0.5]), Value::Floats(&[0.0, 0.5]));
    /// ```
    fn from(xs: &'a [f32; N]) -> Self {
        Value::Floats(xs)
    }
}

impl<'a> From<&'a Vec<f32>> for Value<'a> {
    /// ```
    /// use idtable::data::Value;
    /// let xs = vec![0.0_f32, 0.5];
    /// assert_eq!(Value::from(&xs), Value::Floats(&[0.0, 0.5]));
    /// ```
    fn from(xs: &'a Vec<f32>) -> Self {
        Value::Floats(xs)
    }
}
