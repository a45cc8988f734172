-- A hole whose sizes nothing gives would be a value of any size.
-- ==
-- error: size-polymorphic

def main (b: bool) : []i32 = ???
