//! How mesh messages name the elements of the input: the validation and tiling checks both
//! speak of "element 3 (tetrahedron #4 of the input)".

/// How messages name element `e`: its 0-based index and its rank among the tetrahedra.
pub(super) fn element(e: usize) -> String {
    format!("element {e} (tetrahedron #{} of the input)", e + 1)
}

/// How messages name several elements (at most [`SHOWN`] of them, then "…"), as [`element`]
/// names one: "elements 1, 5 (tetrahedra #2, #6 of the input)".
pub(super) fn elements(list: &[usize]) -> String {
    if let [e] = list {
        return element(*e);
    }
    let more = if list.len() > SHOWN { ", …" } else { "" };
    let shown = &list[..list.len().min(SHOWN)];
    let indices: Vec<String> = shown.iter().map(|e| e.to_string()).collect();
    let ranks: Vec<String> = shown.iter().map(|e| format!("#{}", e + 1)).collect();
    format!(
        "{} elements {}{more} (tetrahedra {}{more} of the input)",
        list.len(),
        indices.join(", "),
        ranks.join(", ")
    )
}

/// How many elements a message lists.
const SHOWN: usize = 10;
