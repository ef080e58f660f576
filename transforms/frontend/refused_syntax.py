"""The syntax no READ pass lowers, and what to write instead: the fence
(read/fence.py) refuses it, and the docs' table of constructs lists it
(s2sad/construct_table.py). A table, not a pass."""
import gast

# Statements and expressions no READ pass lowers: reported with their file
# and line before any pass reads the tree for its meaning.
UNSUPPORTED = {
    gast.ClassDef: "a class definition",
    gast.AsyncFunctionDef: "an async function",
    gast.AsyncFor: "async for", gast.AsyncWith: "async with",
    gast.Await: "await",
    gast.Try: "a try statement",
    gast.Global: "a global statement", gast.Nonlocal: "a nonlocal statement",
    gast.Yield: "yield (a generator)", gast.YieldFrom: "yield from (a generator)",
    gast.SetComp: "a set comprehension",
    gast.DictComp: "a dict comprehension",
    gast.Lambda: "a lambda", gast.FunctionDef: "a nested function definition",
    gast.Delete: "del", gast.Import: "import", gast.ImportFrom: "import",
    gast.Starred: "star-unpacking",
    gast.NamedExpr: "the := operator", gast.Match: "a match statement",
    gast.Set: "a set display",  # (dicts: transforms/frontend/containers/dicts.py)
}
HINTS = {
    gast.SetComp: "Write the loop out with a preallocated array",
    gast.DictComp: "Write the loop out with a preallocated array",
    gast.FunctionDef: "Move the function to module level",
    gast.Lambda: "Define a module-level function instead",
    gast.ClassDef: "Define the class at module level and pass its data as arrays",
    gast.AsyncFunctionDef: "Differentiate a plain def",
    gast.AsyncFor: "Use a plain for loop", gast.AsyncWith: "Use plain code",
    gast.Await: "Compute the value before calling the differentiated function",
    gast.Try: "Check the condition with an if instead",
    gast.Global: "Pass the value as an argument",
    gast.Nonlocal: "Pass the value as an argument and return the new one",
    gast.Yield: "Return an array of the values instead",
    gast.YieldFrom: "Return an array of the values instead",
    gast.Delete: "Leave the variable; it is freed when the function returns",
    gast.Import: "Import at module level", gast.ImportFrom: "Import at module level",
    gast.Starred: "Index the elements (a[0], a[1]) instead",
    gast.NamedExpr: "Assign the value in its own statement first",
    gast.Match: "Use if / elif",
    gast.Set: "Use an array or a tuple",
}
