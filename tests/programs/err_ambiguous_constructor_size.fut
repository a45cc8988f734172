-- A constructor's value has arrays of its type's other constructors too:
-- here nothing says how long `#empty`'s array is (the annotation's `[]`
-- does not), so Futhark asks for a type ascription that names it.
-- ==
-- error: \bAmbiguous size\b.*explicit type ascription

type~ grid = #full ([]f32) | #empty ([]f32)

def main (row: []f32) : i64 =
  let g: grid = #full row
  in length row
