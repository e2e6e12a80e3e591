import { describe, expect, it } from "vitest";
import {
  cleanFramePath,
  commonSuffixSegments,
  isLibraryPath,
  normaliseFramePath,
  parseStackFrames,
} from "../../../src/agent/models/heuristic/frames.js";

const pick = (text: string) =>
  parseStackFrames(text).map((f) => ({ path: f.path, line: f.line, fn: f.fn, lib: f.library, lang: f.language }));

describe("parseStackFrames", () => {
  it("reads V8 frames innermost first, with and without a function, skipping node internals", () => {
    const trace = [
      "TypeError: Cannot read properties of undefined (reading 'map')",
      "    at renderList (/app/src/views/list.js:14:22)",
      "    at async Server.handle [as handler] (/app/src/server.ts:88:5)",
      "    at /app/src/index.js:3:1",
      "    at Object.<anonymous> (/home/runner/work/shop/shop/models/ValidationLog.js:5:27)",
      "    at Module._compile (node:internal/modules/cjs/loader:1105:14)",
      "    at Schema.add (/app/node_modules/mongoose/lib/schema.js:700:12)",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "src/views/list.js", line: 14, fn: "renderList", lib: false, lang: "javascript" },
      { path: "src/server.ts", line: 88, fn: "handle", lib: false, lang: "javascript" },
      { path: "src/index.js", line: 3, fn: null, lib: false, lang: "javascript" },
      { path: "models/ValidationLog.js", line: 5, fn: null, lib: false, lang: "javascript" },
      { path: "node_modules/mongoose/lib/schema.js", line: 700, fn: "add", lib: true, lang: "javascript" },
    ]);
  });

  it("reverses Python tracebacks (most recent call last) and marks site-packages and the stdlib", () => {
    const trace = [
      "Traceback (most recent call last):",
      '  File "/usr/local/lib/python3.11/site-packages/flask/app.py", line 1484, in full_dispatch_request',
      "    rv = self.dispatch_request()",
      '  File "/usr/src/app/shop/views.py", line 42, in checkout',
      "    total = compute_total(cart)",
      '  File "/usr/src/app/shop/pricing.py", line 17, in compute_total',
      "    return sum(i.price for i in cart.items)",
      '  File "/usr/lib/python3.11/json/__init__.py", line 3, in <module>',
      "AttributeError: 'NoneType' object has no attribute 'items'",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "usr/lib/python3.11/json/__init__.py", line: 3, fn: null, lib: true, lang: "python" },
      { path: "shop/pricing.py", line: 17, fn: "compute_total", lib: false, lang: "python" },
      { path: "shop/views.py", line: 42, fn: "checkout", lib: false, lang: "python" },
      {
        path: "usr/local/lib/python3.11/site-packages/flask/app.py",
        line: 1484,
        fn: "full_dispatch_request",
        lib: true,
        lang: "python",
      },
    ]);
  });

  it("maps Java frames to package paths and puts the last Caused by first", () => {
    const trace = [
      'Exception in thread "main" java.lang.IllegalStateException: boom',
      "\tat com.acme.web.OrderController.submit(OrderController.java:51)",
      "\tat java.base/java.lang.Thread.run(Thread.java:833)",
      "Caused by: java.lang.NullPointerException: customer",
      "\tat com.acme.billing.Invoice$Line.total(Invoice.java:27) ~[app.jar:?]",
      "\tat jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
      "\t... 3 more",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "com/acme/billing/Invoice.java", line: 27, fn: "total", lib: false, lang: "java" },
      { path: "com/acme/web/OrderController.java", line: 51, fn: "submit", lib: false, lang: "java" },
      { path: "java/lang/Thread.java", line: 833, fn: "run", lib: true, lang: "java" },
    ]);
  });

  it("reads Go panics: function line then path line, skipping the runtime and `created by`", () => {
    const trace = [
      "panic: runtime error: invalid memory address or nil pointer dereference",
      "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]",
      "",
      "goroutine 1 [running]:",
      "github.com/acme/inventory/store.(*Store).Get(0x0, {0x5e1a20, 0x3})",
      "\t/home/runner/work/inventory/inventory/store/store.go:31 +0x1d",
      "main.handler.func1(...)",
      "\t/go/src/github.com/acme/inventory/main.go:18 +0x45",
      "created by net/http.(*Server).Serve in goroutine 1",
      "\t/usr/local/go/src/net/http/server.go:3086 +0x4cc",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "store/store.go", line: 31, fn: "Get", lib: false, lang: "go" },
      { path: "main.go", line: 18, fn: "handler", lib: false, lang: "go" },
    ]);
  });

  it("reads Ruby frames in the quote and backtick forms, and marks gems", () => {
    const trace = [
      "app/models/user.rb:12:in 'User#full_name': undefined method 'upcase' for nil (NoMethodError)",
      "\tfrom /usr/src/app/app/controllers/users_controller.rb:8:in `block in show'",
      "\tfrom /usr/local/bundle/gems/actionpack-7.1.0/lib/action_controller/metal.rb:227:in `dispatch'",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "models/user.rb", line: 12, fn: "full_name", lib: false, lang: "ruby" },
      { path: "app/controllers/users_controller.rb", line: 8, fn: "show", lib: false, lang: "ruby" },
      {
        path: "usr/local/bundle/gems/actionpack-7.1.0/lib/action_controller/metal.rb",
        line: 227,
        fn: "dispatch",
        lib: true,
        lang: "ruby",
      },
    ]);
  });

  it("reads C# frames with Windows paths and async state machines", () => {
    const trace = [
      "System.NullReferenceException: Object reference not set to an instance of an object.",
      "   at Shop.Services.CartService.<AddItemAsync>d__4.MoveNext() " +
        "in C:\\src\\shop\\Services\\CartService.cs:line 37",
      "   at Shop.Api.CartController.Post(Int32 id) in /build/Api/CartController.cs:line 21",
      "   at System.Threading.Tasks.Task.Execute()",
    ].join("\n");
    expect(pick(trace)).toEqual([
      { path: "src/shop/Services/CartService.cs", line: 37, fn: "AddItemAsync", lib: false, lang: "csharp" },
      { path: "build/Api/CartController.cs", line: 21, fn: "Post", lib: false, lang: "csharp" },
    ]);
  });

  it("returns nothing for prose", () => {
    expect(parseStackFrames("The page is slow at 10:30 when I click save.\nat least twice")).toEqual([]);
  });
});

describe("frame paths", () => {
  it("drops schemes, query strings, drive letters and deployment prefixes", () => {
    expect(normaliseFramePath("webpack:///./src/a.js?abc")).toBe("src/a.js");
    expect(normaliseFramePath("webpack://my-app/./src/a.js")).toBe("src/a.js");
    expect(normaliseFramePath("file:///app/lib/x.mjs")).toBe("lib/x.mjs");
    expect(normaliseFramePath("/usr/src/app/routes/index.js")).toBe("routes/index.js");
    expect(normaliseFramePath("/home/runner/work/repo/repo/pkg/a.go")).toBe("pkg/a.go");
    expect(normaliseFramePath("C:\\Users\\dev\\proj\\src\\A.cs")).toBe("src/A.cs");
    expect(normaliseFramePath("./lib/b.rb")).toBe("lib/b.rb");
    expect(normaliseFramePath("/var/task/handler.py")).toBe("handler.py");
    expect(cleanFramePath("/app/app/models/user.rb")).toBe("app/app/models/user.rb");
  });

  it("counts shared trailing segments, so a Rails app/ folder survives a /app/ container prefix", () => {
    expect(commonSuffixSegments("/app/app/models/user.rb", "app/models/user.rb")).toBe(3);
    expect(commonSuffixSegments("/app/app/models/user.rb", "lib/models/user.rb")).toBe(2);
    expect(commonSuffixSegments("/app/models/Log.js", "models/LogB.js")).toBe(0);
  });

  it("tells dependency and runtime paths apart from repository paths", () => {
    for (const p of [
      "/app/node_modules/x/index.js",
      "node:internal/x",
      "/usr/lib/python3.11/json/x.py",
      "/usr/local/go/src/runtime/panic.go",
      "/x/gems/rack-3/lib/rack.rb",
      "<frozen importlib._bootstrap>",
    ]) {
      expect(isLibraryPath(p), p).toBe(true);
    }
    for (const p of ["/app/src/a.js", "shop/views.py", "/home/runner/work/a/a/lib/gemsmith.rb"])
      expect(isLibraryPath(p), p).toBe(false);
  });
});
