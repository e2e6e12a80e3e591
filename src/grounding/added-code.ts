import type * as TS from "typescript";
import type { Node as SitterNode } from "web-tree-sitter";

/**
 * What one added node (a node of the file after an addition whose parent is existing code) does to the code around
 * it, as far as its syntax tells (see {@link addedCodeProblems}):
 * - `problem`: one sentence when the node may not be added whatever the names (a directive, a statement that only
 *   reads a value, a side-effect import, a member the language runtime calls on its own);
 * - `binds`: names the node binds in the scope of the existing code around it (a `const`, `var` hoisted out of an
 *   added block, a `def`, an import, a Python assignment, a Go `:=`, a class member), each with the node's kind;
 * - `locals`: names declared anywhere inside the node (its own variables and parameters);
 * - `assigns`: the root name of each target the node assigns to, increments or deletes (`this` for `this.x = …`).
 */
export interface AddedFacts {
  problem?: string;
  binds: string[];
  locals: string[];
  assigns: string[];
}

/** One added node for {@link addedCodeProblems}: its facts, its kind name and its 1-based line after the addition. */
export interface AddedNode {
  facts: AddedFacts;
  kind: string;
  line: number;
  offset: number;
}

/**
 * Methods a JavaScript runtime calls without the code naming them: `then` (every `await` and promise resolution of
 * an instance), conversions (`toString`, `valueOf`, `toJSON`, `toLocaleString`), Node's `inspect`, and
 * `constructor` (a class without one gets the default; an added one runs on every `new`).
 */
const JS_IMPLICIT = new Set(["constructor", "then", "toString", "valueOf", "toJSON", "toLocaleString", "inspect"]);

/**
 * Methods the Go standard library calls through an interface check on any value it is handed: fmt (`String`,
 * `GoString`, `Format`, `Error`), encoding/json and encoding (`Marshal…`/`Unmarshal…`), database/sql (`Scan`,
 * `Value`), errors (`Unwrap`, `Is`, `As`), net/http (`ServeHTTP`), and the YAML libraries' `MarshalYAML`.
 * Adding one to an existing type changes how every existing caller of those packages treats its values.
 */
const GO_IMPLICIT = new Set([
  "String",
  "GoString",
  "Format",
  "Error",
  "MarshalJSON",
  "UnmarshalJSON",
  "MarshalText",
  "UnmarshalText",
  "MarshalBinary",
  "UnmarshalBinary",
  "MarshalYAML",
  "UnmarshalYAML",
  "Scan",
  "Value",
  "Unwrap",
  "Is",
  "As",
  "ServeHTTP",
]);

/** A Python name the interpreter looks up on its own: `__getattr__`, `__eq__`, `__all__`, `__slots__`, … */
const DUNDER = /^__\w+__$/;

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

/**
 * The problems of the added nodes of one file, first per kind, given the text before the addition:
 * - a node's own `problem`;
 * - a name a node `binds` that the existing text already holds as a word (an identifier, a key, a word in a
 *   comment: conservative). A binding of a name existing code uses changes what that code refers to: a `var` or
 *   function hoisted over a global it reads, a `let` that puts its reads in the temporal dead zone, an import that
 *   replaces a global such as `fetch`, a Python assignment or `global` that makes an existing name local or global, a
 *   Go `:=` that reassigns or shadows `err`, a class member that replaces one callers reach by name;
 * - an assignment, increment or delete whose root name the addition does not itself declare: an addition may not
 *   change a value existing code reads (`user.isAdmin = true`, `this.x = …`, `Object.prototype.y = …`,
 *   `os.environ[k] = …`).
 * Names `_` and `self`/`this` as binds are not counted (`_` binds nothing; a parameter named `self` is a new
 * method's own).
 */
export function addedCodeProblems(nodes: readonly AddedNode[], before: string): { offset: number; message: string }[] {
  const out: { offset: number; message: string }[] = [];
  const own = nodes.find((n) => n.facts.problem !== undefined);
  if (own) out.push({ offset: own.offset, message: `the added ${own.kind} at line ${own.line} ${own.facts.problem}` });
  const declared = new Set(nodes.flatMap((n) => [...n.facts.binds, ...n.facts.locals]));
  let words: Set<string> | undefined;
  for (const n of nodes) {
    const bound = n.facts.binds.filter((x) => x !== "_");
    if (bound.length === 0) continue;
    words ??= new Set(before.match(WORD) ?? []);
    const taken = bound.find((x) => words!.has(x));
    if (taken === undefined) continue;
    out.push({
      offset: n.offset,
      message:
        `the added ${n.kind} at line ${n.line} binds ${JSON.stringify(taken)}, a name the existing code of this file ` +
        `already uses: it would change what that code refers to (shadowing, hoisting or rebinding it); use a new name`,
    });
    break;
  }
  for (const n of nodes) {
    const target = n.facts.assigns.find((x) => !declared.has(x));
    if (target === undefined) continue;
    out.push({
      offset: n.offset,
      message:
        `the added ${n.kind} at line ${n.line} assigns to, changes or deletes ${JSON.stringify(target)}, which the ` +
        `addition does not declare: an addition may not change a value existing code reads; test it in a guard ` +
        `instead`,
    });
    break;
  }
  return out;
}

// ─────────────────────────── TypeScript / JavaScript ───────────────────────────

/**
 * Whether an added node `child` may sit directly in the existing node `parent`: a statement in a statement list
 * (a block, a file, a namespace, a `case`), a member in a class body, a member in an interface. Anything else (an
 * argument, a parameter, an array element, an object key, an enum member, a `case` clause, a heritage clause, a JSX
 * child) goes inside an existing expression or declaration and changes what it does: `f(a, b)` with an argument
 * added in between passes its arguments in other places, `{cwd}` with `shell: true` added runs a shell.
 */
export function tsHolds(ts: typeof TS, parent: TS.Node, child: TS.Node): boolean {
  if (ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isModuleBlock(parent) || ts.isCaseOrDefaultClause(parent))
    return true;
  if (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) return ts.isClassElement(child);
  if (ts.isInterfaceDeclaration(parent) || ts.isTypeLiteralNode(parent)) return ts.isTypeElement(child);
  return false;
}

/**
 * The names a TypeScript declaration name binds: an identifier, a private name, a string or numeric key, or every
 * name of a destructuring pattern (`{a, b: [c]}` → a, c); [] for a computed name or none.
 */
export function tsNames(ts: typeof TS, name: TS.Node | undefined): string[] {
  if (name === undefined) return [];
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))
    return [name.text];
  if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name))
    return name.elements.flatMap((e) => (ts.isBindingElement(e) ? tsNames(ts, e.name) : []));
  return [];
}

/** The {@link AddedFacts} of an added TypeScript/JavaScript node whose existing parent holds it ({@link tsHolds}). */
export function tsAddedFacts(ts: typeof TS, sf: TS.SourceFile, node: TS.Node, parent: TS.Node): AddedFacts {
  const K = ts.SyntaxKind;
  const facts: AddedFacts = { binds: [], locals: [], assigns: [] };
  const nameText = (name: TS.Node | undefined) => tsNames(ts, name);
  const root = (target: TS.Expression): string[] => {
    let t: TS.Expression = target;
    for (;;) {
      if (ts.isPropertyAccessExpression(t) || ts.isElementAccessExpression(t)) t = t.expression;
      else if (ts.isParenthesizedExpression(t) || ts.isNonNullExpression(t) || ts.isAsExpression(t)) t = t.expression;
      else break;
    }
    if (ts.isIdentifier(t)) return [t.text];
    if (t.kind === K.ThisKeyword) return ["this"];
    if (t.kind === K.SuperKeyword) return ["super"];
    if (ts.isArrayLiteralExpression(t))
      return t.elements.flatMap((e) => root(ts.isSpreadElement(e) ? e.expression : e));
    if (ts.isObjectLiteralExpression(t)) {
      return t.properties.flatMap((p) =>
        ts.isPropertyAssignment(p)
          ? root(p.initializer)
          : ts.isShorthandPropertyAssignment(p)
            ? [p.name.text]
            : ts.isSpreadAssignment(p)
              ? root(p.expression)
              : [],
      );
    }
    if (ts.isBinaryExpression(t) && t.operatorToken.kind === K.EqualsToken) return root(t.left); // a default
    return [];
  };

  // The node's own problem.
  if (ts.isExpressionStatement(node)) {
    let e: TS.Expression = node.expression;
    while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) e = e.expression;
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) {
      facts.problem =
        `is a string on its own line: a directive such as "use strict", "use client" or "use server" changes how ` +
        `the existing code of its scope runs (or where), and any other string does nothing`;
    } else if (
      ts.isIdentifier(e) ||
      ts.isPropertyAccessExpression(e) ||
      ts.isElementAccessExpression(e) ||
      ts.isLiteralExpression(e) ||
      e.kind === K.ThisKeyword ||
      e.kind === K.TrueKeyword ||
      e.kind === K.FalseKeyword ||
      e.kind === K.NullKeyword
    ) {
      facts.problem =
        `only reads ${JSON.stringify(e.getText(sf).slice(0, 40))}: it does nothing but may throw when it runs ` +
        `(a bare ` +
        `\`declare\` line is such a statement and throws when the file loads)`;
    } else if (
      ts.isCallExpression(e) &&
      (e.expression.kind === K.ImportKeyword || (ts.isIdentifier(e.expression) && e.expression.text === "require"))
    ) {
      facts.problem =
        `loads a module for its side effects only: the module's code would run whenever this file loads, ` +
        `changing what the existing code runs with`;
    }
  } else if (ts.isImportDeclaration(node) && node.importClause === undefined) {
    facts.problem =
      `imports a module for its side effects only: the module's code would run whenever this file loads, ` +
      `changing what the existing code runs with`;
  } else if (ts.isClassStaticBlockDeclaration(node)) {
    facts.problem = "is a static block: it runs when the existing class is defined";
  } else if (ts.isClassElement(node) && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent))) {
    if (ts.isConstructorDeclaration(node)) {
      facts.problem = "is a constructor: it would run on every construction of the existing class";
    } else if (node.name !== undefined && ts.isComputedPropertyName(node.name)) {
      facts.problem =
        "has a computed name (such as [Symbol.iterator] or [util.inspect.custom]): the runtime may call it on " +
        "existing instances on its own";
    } else if (ts.isPropertyDeclaration(node) && !node.modifiers?.some((m) => m.kind === K.DeclareKeyword)) {
      facts.problem =
        "is a field: it is set on every instance of the existing class when it is constructed, over what the " +
        "existing code would find there";
    } else {
      const name = nameText(node.name)[0];
      if (name !== undefined && JS_IMPLICIT.has(name)) {
        facts.problem =
          `is named ${JSON.stringify(name)}, a method the runtime calls on existing instances on its own ` +
          `(await, conversions, printing)`;
      }
    }
  }

  // What it binds in the scope of existing code.
  if (ts.isVariableStatement(node))
    facts.binds.push(...node.declarationList.declarations.flatMap((d) => nameText(d.name)));
  else if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause?.name) facts.binds.push(clause.name.text);
    const named = clause?.namedBindings;
    if (named && ts.isNamespaceImport(named)) facts.binds.push(named.name.text);
    if (named && ts.isNamedImports(named)) facts.binds.push(...named.elements.map((e) => e.name.text));
  } else if (ts.isImportEqualsDeclaration(node)) facts.binds.push(node.name.text);
  else if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyDeclaration(node)
  )
    facts.binds.push(...nameText(node.name));

  // Inside it: `var` and function declarations hoisted out of added blocks, its own locals, its assignments.
  const walk = (n: TS.Node, inFunction: boolean): void => {
    if (ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isBindingElement(n))
      facts.locals.push(...nameText(n.name));
    if (
      n !== node &&
      !inFunction &&
      ((ts.isVariableDeclarationList(n) && (n.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) === 0) ||
        ts.isFunctionDeclaration(n))
    ) {
      if (ts.isVariableDeclarationList(n)) facts.binds.push(...n.declarations.flatMap((d) => nameText(d.name)));
      else facts.binds.push(...nameText(n.name));
    }
    if ((ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n)) && n.name) facts.locals.push(n.name.text);
    if (ts.isCatchClause(n) && n.variableDeclaration) facts.locals.push(...nameText(n.variableDeclaration.name));
    if (ts.isBinaryExpression(n) && isAssignment(ts, n.operatorToken.kind)) facts.assigns.push(...root(n.left));
    if (
      (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
      (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)
    )
      facts.assigns.push(...root(n.operand));
    if (ts.isDeleteExpression(n)) facts.assigns.push(...root(n.expression));
    if ((ts.isForOfStatement(n) || ts.isForInStatement(n)) && !ts.isVariableDeclarationList(n.initializer))
      facts.assigns.push(...root(n.initializer as TS.Expression));
    ts.forEachChild(n, (c) => walk(c, inFunction || (n !== node && ts.isFunctionLike(n))));
  };
  walk(node, false);
  return facts;
}

function isAssignment(ts: typeof TS, kind: TS.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

// ─────────────────────────── Python, Go (tree-sitter) ───────────────────────────

/**
 * Whether an added tree-sitter node of type `child` may sit directly in an existing node of type `parent`: a
 * statement in a Python module or block (a class body is a block), a Go top-level declaration, statement or import
 * spec. Anything else (an argument, a parameter, a list or dict element, an `elif`/`except`/`else` clause, a Go
 * struct field, a `const (…)` spec that shifts `iota`, a composite-literal element) changes an existing construct.
 */
export function sitterHolds(language: "python" | "go", parent: string, child: string): boolean {
  if (language === "python") return parent === "module" || parent === "block";
  if (parent === "block") return child === "statement_list";
  return parent === "source_file" || parent === "statement_list" || parent === "import_spec_list";
}

/** The {@link AddedFacts} of an added Python or Go node whose existing parent holds it ({@link sitterHolds}). */
export function sitterAddedFacts(language: "python" | "go", node: SitterNode): AddedFacts {
  return language === "python" ? pythonFacts(node) : goFacts(node);
}

const kids = (n: SitterNode | null | undefined): SitterNode[] =>
  (n?.namedChildren ?? []).filter((c): c is SitterNode => c !== null);

/** Identifiers a Python target binds (`a`, `a, b`, `(a, [b, *c])`); attributes and subscripts bind nothing. */
function pythonTargets(n: SitterNode | null): string[] {
  if (!n) return [];
  if (n.type === "identifier") return [n.text];
  if (
    [
      "pattern_list",
      "tuple_pattern",
      "list_pattern",
      "tuple",
      "list",
      "list_splat_pattern",
      "as_pattern_target",
    ].includes(n.type)
  )
    return kids(n).flatMap(pythonTargets);
  return [];
}

/** Root names of the Python targets that are attributes or subscripts (`a.b`, `a[k]`). */
function pythonRoots(n: SitterNode | null): string[] {
  if (!n) return [];
  if (n.type === "attribute" || n.type === "subscript") {
    let t: SitterNode | null = n;
    while (t && (t.type === "attribute" || t.type === "subscript"))
      t = t.childForFieldName(t.type === "attribute" ? "object" : "value");
    return t?.type === "identifier" ? [t.text] : [];
  }
  if (["pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"].includes(n.type))
    return kids(n).flatMap(pythonRoots);
  return [];
}

function pythonFacts(node: SitterNode): AddedFacts {
  const facts: AddedFacts = { binds: [], locals: [], assigns: [] };
  if (node.type === "future_import_statement") {
    facts.problem = "is a __future__ import: it changes how the whole existing module is compiled";
  } else if (node.type === "import_from_statement" && kids(node).some((c) => c.type === "wildcard_import")) {
    facts.problem = "is a star import: it binds names no reader sees, any of which can replace an existing one";
  } else if (node.type === "expression_statement") {
    const e = kids(node)[0];
    if (e?.type === "string" || e?.type === "concatenated_string") {
      facts.problem =
        "is a string on its own line: as the first statement it replaces a docstring the code may read " +
        "(doctest, parsers, CLIs), anywhere else it does nothing";
    } else if (e && ["identifier", "attribute", "subscript"].includes(e.type)) {
      facts.problem = `only reads ${JSON.stringify(e.text.slice(0, 40))}: it does nothing but may raise when it runs`;
    }
  }
  // Bindings: a Python name bound anywhere in a function is local to all of it, so every binding of the added code
  // outside its own nested functions and classes binds in the scope of the existing code.
  const walk = (n: SitterNode, top: boolean): void => {
    switch (n.type) {
      case "function_definition":
      case "class_definition": {
        const name = n.childForFieldName("name")?.text;
        if (name) (top ? facts.binds : facts.locals).push(name);
        if (name && top && DUNDER.test(name))
          facts.problem ??= `defines ${name}, a name the interpreter looks up on its own on existing objects`;
        const params = n.childForFieldName("parameters");
        for (const p of kids(params)) {
          const id =
            p.type === "identifier" ? p : (p.childForFieldName("name") ?? kids(p).find((c) => c.type === "identifier"));
          if (id) facts.locals.push(id.text);
        }
        for (const c of kids(n)) walk(c, false);
        return;
      }
      case "lambda":
        return;
      case "global_statement":
      case "nonlocal_statement":
        facts.binds.push(...kids(n).map((c) => c.text));
        return;
      case "import_statement":
      case "import_from_statement": {
        for (const name of n.childrenForFieldName("name")) {
          if (!name) continue;
          const alias = name.type === "aliased_import" ? name.childForFieldName("alias") : null;
          const dotted = name.type === "aliased_import" ? name.childForFieldName("name") : name;
          const bound = alias?.text ?? (n.type === "import_statement" ? kids(dotted)[0]?.text : dotted?.text);
          if (bound) (top ? facts.binds : facts.locals).push(bound);
        }
        return;
      }
      case "assignment":
      case "augmented_assignment": {
        const left = n.childForFieldName("left");
        const names = pythonTargets(left);
        (top ? facts.binds : facts.locals).push(...names);
        if (n.type === "augmented_assignment") facts.assigns.push(...names);
        facts.assigns.push(...pythonRoots(left));
        break;
      }
      case "for_statement":
      case "for_in_clause":
        // A comprehension's own variables are its own (Python 3); a for loop's bind in the enclosing scope.
        (top && n.type === "for_statement" ? facts.binds : facts.locals).push(
          ...pythonTargets(n.childForFieldName("left")),
        );
        facts.assigns.push(...pythonRoots(n.childForFieldName("left")));
        break;
      case "as_pattern":
        (top ? facts.binds : facts.locals).push(...pythonTargets(n.childForFieldName("alias")));
        break;
      case "named_expression":
        (top ? facts.binds : facts.locals).push(...pythonTargets(n.childForFieldName("name")));
        break;
      case "delete_statement":
        for (const t of kids(n)) facts.assigns.push(...(t.type === "identifier" ? [t.text] : pythonRoots(t)));
        break;
    }
    for (const c of kids(n)) walk(c, top);
  };
  walk(node, true);
  for (const name of facts.binds)
    if (DUNDER.test(name))
      facts.problem ??= `binds ${name}, a name the interpreter looks up on its own (star imports, attribute access)`;
  return facts;
}

function goFacts(node: SitterNode): AddedFacts {
  const facts: AddedFacts = { binds: [], locals: [], assigns: [] };
  const idents = (n: SitterNode | null): string[] => kids(n).flatMap((c) => (c.type === "identifier" ? [c.text] : []));
  const rootOf = (n: SitterNode): string[] => {
    let t: SitterNode | null = n;
    while (
      t &&
      ["selector_expression", "index_expression", "parenthesized_expression", "unary_expression"].includes(t.type)
    )
      t = t.childForFieldName("operand") ?? kids(t)[0] ?? null;
    return t?.type === "identifier" ? [t.text] : [];
  };
  if (node.type === "function_declaration") {
    const name = node.childForFieldName("name")?.text;
    if (name === "init")
      facts.problem = "is an init function: it runs when the package loads, before any existing code";
    else if (name) facts.binds.push(name);
  } else if (node.type === "method_declaration") {
    const name = node.childForFieldName("name")?.text ?? "";
    if (GO_IMPLICIT.has(name)) {
      facts.problem =
        `is a ${name} method: the standard library calls it on existing values of that type on its own ` +
        `(printing, encoding, errors, database/sql, net/http)`;
    }
  } else if (node.type === "import_spec" || node.type === "import_declaration") {
    const specs =
      node.type === "import_spec" ? [node] : node.descendantsOfType("import_spec").filter((s) => s !== null);
    for (const spec of specs) {
      const name = spec!.childForFieldName("name");
      const path = spec!.childForFieldName("path")?.text ?? "";
      if (name?.type === "blank_identifier")
        facts.problem ??=
          `imports ${path} for its side effects only: its init functions would run when the ` + "package loads";
      else if (path === '"C"') facts.problem ??= "imports C: it turns the existing file into a cgo file";
    }
  } else if (node.type === "short_var_declaration") {
    facts.binds.push(...idents(node.childForFieldName("left")));
  } else if (["var_declaration", "const_declaration", "type_declaration"].includes(node.type)) {
    for (const spec of kids(node))
      facts.binds.push(...spec.childrenForFieldName("name").flatMap((n) => (n ? [n.text] : [])));
  }
  const walk = (n: SitterNode): void => {
    if (n.type === "short_var_declaration") facts.locals.push(...idents(n.childForFieldName("left")));
    if (n.type === "var_spec" || n.type === "const_spec" || n.type === "parameter_declaration")
      facts.locals.push(...n.childrenForFieldName("name").flatMap((x) => (x ? [x.text] : [])));
    if (n.type === "range_clause") {
      if (n.children.some((c) => c?.type === ":=")) facts.locals.push(...idents(n.childForFieldName("left")));
      else for (const t of kids(n.childForFieldName("left"))) facts.assigns.push(...rootOf(t));
    }
    if (n.type === "assignment_statement")
      for (const t of kids(n.childForFieldName("left"))) facts.assigns.push(...rootOf(t));
    if (n.type === "inc_statement" || n.type === "dec_statement") facts.assigns.push(...kids(n).flatMap(rootOf));
    for (const c of kids(n)) walk(c);
  };
  walk(node);
  return facts;
}
