//! The last guard before a report is written: every number in it is finite. JSON has no
//! infinity or NaN (`serde_json` writes them as `null`, indistinguishable from an absent
//! value), so a report holding one would say nothing where it should hold a number.
//!
//! [`first_non_finite`] walks a value as serde serializes it, keeping the path of field
//! names and indices, and stops at the first `f32` / `f64` that is not finite.

use serde::ser::{self, Serialize};
use std::fmt;

/// The path (`levels[3].sim.time_s`) and value of the first number in `value` that is not
/// finite, `None` when they all are. `root` starts the path.
pub fn first_non_finite<T: Serialize + ?Sized>(root: &str, value: &T) -> Option<String> {
    let mut walk = Walk {
        path: root.to_string(),
    };
    match value.serialize(&mut walk) {
        Ok(()) => None,
        Err(Found(at)) => Some(at),
    }
}

/// `value` as pretty JSON ending in a newline, once every number in it is finite.
///
/// # Errors
/// A one-line message naming the first number that is not finite (its path from `root`):
/// nothing should then be written.
pub fn pretty_json<T: Serialize + ?Sized>(root: &str, value: &T) -> Result<String, String> {
    if let Some(at) = first_non_finite(root, value) {
        return Err(format!(
            "the results would hold a number that is not finite ({at}), which JSON cannot \
             write: nothing was written"
        ));
    }
    serde_json::to_string_pretty(value)
        .map(|json| json + "\n")
        .map_err(|e| e.to_string())
}

/// Where the walk is.
struct Walk {
    path: String,
}

/// The first number that is not finite, described (path and value); also carries a custom
/// serialization error as its text.
#[derive(Debug)]
struct Found(String);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Found {}

impl ser::Error for Found {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Found(msg.to_string())
    }
}

impl Walk {
    /// Checks `x`.
    fn number(&self, x: f64) -> Result<(), Found> {
        if x.is_finite() {
            Ok(())
        } else {
            Err(Found(format!("{} is {x}", self.path)))
        }
    }

    /// Walks `value` under the path extended by `step`.
    fn under<T: Serialize + ?Sized>(&mut self, step: &str, value: &T) -> Result<(), Found> {
        let len = self.path.len();
        self.path.push_str(step);
        let result = value.serialize(&mut *self);
        self.path.truncate(len);
        result
    }
}

/// Methods that hold no number.
macro_rules! nothing {
    ($($name:ident($($t:ty)?)),*) => {
        $(fn $name(self $(, _: $t)?) -> Result<(), Found> { Ok(()) })*
    };
}

impl<'a> ser::Serializer for &'a mut Walk {
    type Ok = ();
    type Error = Found;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Seq<'a>;
    type SerializeStruct = Seq<'a>;
    type SerializeStructVariant = Seq<'a>;

    nothing!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit()
    );

    fn serialize_f32(self, v: f32) -> Result<(), Found> {
        self.number(f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<(), Found> {
        self.number(v)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Found> {
        value.serialize(self)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Found> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Found> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        self.under(&format!(".{variant}"), value)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Found> {
        Ok(Seq::new(self))
    }
}

/// The walk inside a sequence, tuple, map or struct: elements are numbered, fields and map
/// entries named (a map's key by its text when it is one).
struct Seq<'a> {
    walk: &'a mut Walk,
    index: usize,
    key: String,
}

impl<'a> Seq<'a> {
    fn new(walk: &'a mut Walk) -> Self {
        Seq {
            walk,
            index: 0,
            key: String::new(),
        }
    }

    /// The next element, `[i]`.
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        let step = format!("[{}]", self.index);
        self.index += 1;
        self.walk.under(&step, value)
    }

    /// A named field, `.name`.
    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Found> {
        self.walk.under(&format!(".{name}"), value)
    }
}

/// The compound serializers whose parts are numbered elements: each walks its part as the next
/// element, `[i]`.
macro_rules! numbered {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = Found;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
                self.element(value)
            }
            fn end(self) -> Result<(), Found> {
                Ok(())
            }
        }
    )*};
}

numbered!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Seq<'_> {
    type Ok = ();
    type Error = Found;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Found> {
        self.key = serde_json::to_value(key)
            .ok()
            .and_then(|k| k.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("[{}]", self.index));
        self.index += 1;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        let key = std::mem::take(&mut self.key);
        self.field(&key, value)
    }
    fn end(self) -> Result<(), Found> {
        Ok(())
    }
}

/// The compound serializers whose parts are named fields: each walks its part as `.name`.
macro_rules! named {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = Found;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                name: &'static str,
                value: &T,
            ) -> Result<(), Found> {
                self.field(name, value)
            }
            fn end(self) -> Result<(), Found> {
                Ok(())
            }
        }
    )*};
}

named!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::{first_non_finite, pretty_json};
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    struct Sim {
        time_s: f64,
        share: Option<f32>,
    }

    #[derive(serde::Serialize)]
    struct Level {
        level: usize,
        sim: Sim,
        times: BTreeMap<String, f64>,
        loads: Vec<f64>,
    }

    fn level(time_s: f64, share: f32, load: f64, mark: f64) -> Level {
        Level {
            level: 1,
            sim: Sim {
                time_s,
                share: Some(share),
            },
            times: [("mark".to_string(), mark)].into_iter().collect(),
            loads: vec![1.0, load],
        }
    }

    #[test]
    fn the_first_number_that_is_not_finite_is_named_by_its_path() {
        let fine = [level(1.0, 0.5, 2.0, 3.0)];
        assert_eq!(first_non_finite("levels", &fine), None);
        let cases = [
            (
                level(f64::INFINITY, 0.5, 2.0, 3.0),
                "levels[1].sim.time_s is inf",
            ),
            (level(1.0, f32::NAN, 2.0, 3.0), "levels[1].sim.share is NaN"),
            (
                level(1.0, 0.5, f64::NEG_INFINITY, 3.0),
                "levels[1].loads[1] is -inf",
            ),
            (
                level(1.0, 0.5, 2.0, f64::NAN),
                "levels[1].times.mark is NaN",
            ),
        ];
        for (bad, expected) in cases {
            let records = [level(1.0, 0.5, 2.0, 3.0), bad];
            assert_eq!(
                first_non_finite("levels", &records).as_deref(),
                Some(expected)
            );
        }
    }

    #[test]
    fn pretty_json_writes_finite_values_and_refuses_the_rest_naming_them() {
        let json = pretty_json("study", &level(2.5, 0.5, 1.0, 3.0)).unwrap();
        assert!(json.ends_with("}\n") && json.contains("\"time_s\": 2.5"));
        let e = pretty_json("study", &level(2.5, 0.5, f64::NAN, 3.0)).unwrap_err();
        assert!(e.contains("study.loads[1] is NaN"), "{e}");
        assert!(e.contains("nothing was written"), "{e}");
    }
}
