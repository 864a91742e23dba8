"""What Python's special methods do, in the words a question uses for them.

A question rarely writes ``__eq__``; it asks about "the equality comparison method" or
"how the object is pickled". The words below are the meaning the Python Language
Reference gives each special method name ("Data model", section 3.3, Special method
names: https://docs.python.org/3/reference/datamodel.html#special-method-names), so that
lexical retrieval (:mod:`citeloop.knowledge.search`) finds a class's ``__eq__`` by
"equality" as it finds ``DefaultJSONProvider`` by "JSON provider". They are the
language's, not any code base's: a method of such a name means this in every program.

They go to the doc field of the method's search document, as a docstring would (the
name itself stays the entity's name); a task still needs its other words (the class,
what it is about) to tell one class's ``__eq__`` from another's. Words a task's query
leaves out (stop words such as "and", "or", "call", "with") are not listed: they could
never match.
"""

from __future__ import annotations

_COMPARISON = "comparison compare compared"
_ARITHMETIC = "arithmetic operator"
_REFLECTED = "reflected swapped operand"
_IN_PLACE = "augmented assignment place"
_CONTAINER = "container"

SPECIAL_METHOD_WORDS: dict[str, str] = {
    # Basic customization (3.3.1)
    "__new__": "constructor construct create creation instance",
    "__init__": "initializer initialize initialization initialise constructor construct",
    "__del__": "finalizer finalize destructor destroy garbage",
    "__repr__": "representation repr represent string debugging",
    "__str__": "string str conversion convert printable informal",
    "__bytes__": "bytes conversion convert",
    "__format__": "format formatting formatted specification",
    "__lt__": f"less ordering {_COMPARISON}",
    "__le__": f"less equal ordering {_COMPARISON}",
    "__eq__": f"equality equal equals {_COMPARISON}",
    "__ne__": f"inequality unequal equal {_COMPARISON}",
    "__gt__": f"greater ordering {_COMPARISON}",
    "__ge__": f"greater equal ordering {_COMPARISON}",
    "__hash__": "hash hashing hashable dictionary key",
    "__bool__": "truth truthiness boolean bool",
    # Attribute access (3.3.2)
    "__getattr__": "attribute access lookup missing fallback",
    "__getattribute__": "attribute access lookup",
    "__setattr__": "attribute assignment assign set",
    "__delattr__": "attribute deletion delete",
    "__dir__": "dir listing attributes",
    "__get__": "descriptor access",
    "__set__": "descriptor set assignment",
    "__delete__": "descriptor delete deletion",
    "__set_name__": "descriptor owner name",
    # Class creation (3.3.3 - 3.3.5)
    "__init_subclass__": "subclass subclassing initialization hook",
    "__class_getitem__": "generic subscription alias type",
    "__instancecheck__": "isinstance instance check",
    "__mro_entries__": "base bases entries subclassing",
    "__subclasscheck__": "issubclass subclass check",
    # Callables and containers (3.3.6, 3.3.7)
    "__call__": "callable calling",
    "__len__": f"length len size {_CONTAINER}",
    "__length_hint__": "length hint estimate",
    "__getitem__": f"item indexing index subscription lookup key {_CONTAINER}",
    "__setitem__": f"item assignment assign index key {_CONTAINER}",
    "__delitem__": f"item deletion delete index key {_CONTAINER}",
    "__missing__": "missing key default dictionary",
    "__iter__": f"iteration iterate iterator iterable {_CONTAINER}",
    "__next__": "next iterator iteration",
    "__reversed__": "reversed reverse iteration",
    "__contains__": f"membership contains containment {_CONTAINER}",
    # Numeric types (3.3.8)
    "__add__": f"addition add plus {_ARITHMETIC}",
    "__sub__": f"subtraction subtract minus {_ARITHMETIC}",
    "__mul__": f"multiplication multiply {_ARITHMETIC}",
    "__matmul__": f"matrix multiplication {_ARITHMETIC}",
    "__truediv__": f"division divide {_ARITHMETIC}",
    "__floordiv__": f"floor division divide {_ARITHMETIC}",
    "__mod__": f"modulo remainder {_ARITHMETIC}",
    "__divmod__": f"divmod division remainder {_ARITHMETIC}",
    "__pow__": f"power exponentiation {_ARITHMETIC}",
    "__lshift__": f"left shift bitwise {_ARITHMETIC}",
    "__rshift__": f"right shift bitwise {_ARITHMETIC}",
    "__and__": f"bitwise conjunction intersection {_ARITHMETIC}",
    "__xor__": f"bitwise xor exclusive symmetric difference {_ARITHMETIC}",
    "__or__": f"bitwise disjunction union {_ARITHMETIC}",
    "__neg__": f"negation negate unary minus {_ARITHMETIC}",
    "__pos__": f"unary plus {_ARITHMETIC}",
    "__abs__": f"absolute magnitude {_ARITHMETIC}",
    "__invert__": f"inversion invert bitwise unary {_ARITHMETIC}",
    "__complex__": "complex conversion convert",
    "__int__": "integer int conversion convert",
    "__float__": "float conversion convert",
    "__index__": "integer conversion slicing lossless",
    "__round__": "round rounding",
    "__trunc__": "truncate truncation",
    "__floor__": "floor rounding",
    "__ceil__": "ceiling rounding",
    # With statement context managers (3.3.9)
    "__enter__": "context manager enter statement",
    "__exit__": "context manager exit statement cleanup",
    # Coroutines (3.4)
    "__await__": "await awaitable coroutine",
    "__aiter__": "asynchronous async iteration iterator",
    "__anext__": "asynchronous async next iterator",
    "__aenter__": "asynchronous async context manager enter",
    "__aexit__": "asynchronous async context manager exit",
    # Pickling and copying (the pickle and copy modules' protocols)
    "__getstate__": "state pickling pickle serialization serialize",
    "__setstate__": "state unpickling pickle restore deserialization",
    "__reduce__": "pickling pickle reduce serialization reconstruct",
    "__reduce_ex__": "pickling pickle reduce serialization protocol",
    "__getnewargs__": "pickling pickle arguments",
    "__getnewargs_ex__": "pickling pickle arguments",
    "__copy__": "copy shallow copying",
    "__deepcopy__": "deep copy copying",
    # The file system path protocol (os.PathLike)
    "__fspath__": "filesystem system path pathlike",
}
"""Words for each special method name (see the module docstring)."""

_BINARY = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow")
_BITWISE = ("lshift", "rshift", "and", "xor", "or")
SPECIAL_METHOD_WORDS |= {
    f"__r{name}__": f"{SPECIAL_METHOD_WORDS[f'__{name}__']} {_REFLECTED}"
    for name in (*_BINARY, *_BITWISE)
}
SPECIAL_METHOD_WORDS |= {  # Python has no __idivmod__
    f"__i{name}__": f"{SPECIAL_METHOD_WORDS[f'__{name}__']} {_IN_PLACE}"
    for name in (*_BINARY, *_BITWISE)
    if name != "divmod"
}


def special_method_words(name: str) -> str:
    """The words of :data:`SPECIAL_METHOD_WORDS` for a method named ``name`` (``""`` for
    any other name)."""
    return SPECIAL_METHOD_WORDS.get(name, "")
