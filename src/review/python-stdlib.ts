/**
 * Top-level module names of the Python 3 standard library (3.8 through 3.13, including modules removed in 3.12/3.13
 * such as `distutils`, `imp`, `asynchat`, and platform-specific ones like `msvcrt`, `winreg`, `posix`), plus common
 * private accelerator modules. Written for the review's imports rule: a new import of one of these is never fabricated.
 */
export const PYTHON_STDLIB: ReadonlySet<string> = new Set(
  `__future__ __main__ _thread _abc _ast _asyncio _bisect _blake2 _bz2 _codecs _collections _collections_abc
  _compat_pickle _compression _contextvars _csv _ctypes _datetime _decimal _functools _hashlib _heapq _io _json
  _locale _lsprof _lzma _markupbase _md5 _multiprocessing _opcode _operator _osx_support _pickle _posixsubprocess
  _py_abc _pydecimal _pyio _queue _random _sha1 _sha256 _sha512 _signal _socket _sqlite3 _sre _ssl _stat _statistics
  _string _strptime _struct _symtable _sysconfigdata _threading_local _tkinter _tracemalloc _uuid _warnings _weakref
  _weakrefset _winapi _zoneinfo abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop
  base64 bdb binascii binhex bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop
  collections colorsys compileall concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes curses
  dataclasses datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno faulthandler
  fcntl filecmp fileinput fnmatch formatter fractions ftplib functools gc genericpath getopt getpass gettext glob
  graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools
  json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib
  msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os ossaudiodev parser
  pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty pwd
  py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter runpy sched
  secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3
  sre_compile sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau symbol symtable
  sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios test textwrap this threading time timeit tkinter
  token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types typing unicodedata unittest urllib uu
  uuid venv warnings wave weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib
  zoneinfo`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Import names of popular PyPI distributions whose import name differs from the distribution name (normalized as in
 * PEP 503, with `_`): distribution → import names.
 */
export const PYTHON_IMPORT_ALIASES: Readonly<Record<string, readonly string[]>> = {
  pyyaml: ["yaml"],
  beautifulsoup4: ["bs4"],
  pillow: ["PIL"],
  scikit_learn: ["sklearn"],
  scikit_image: ["skimage"],
  python_dateutil: ["dateutil"],
  opencv_python: ["cv2"],
  opencv_python_headless: ["cv2"],
  opencv_contrib_python: ["cv2"],
  protobuf: ["google"],
  attrs: ["attr", "attrs"],
  pyjwt: ["jwt"],
  python_dotenv: ["dotenv"],
  psycopg2_binary: ["psycopg2"],
  psycopg_binary: ["psycopg"],
  pycryptodome: ["Crypto"],
  pycryptodomex: ["Cryptodome"],
  setuptools: ["setuptools", "pkg_resources"],
  pyserial: ["serial"],
  pyzmq: ["zmq"],
  python_magic: ["magic"],
  faiss_cpu: ["faiss"],
  faiss_gpu: ["faiss"],
  pymupdf: ["fitz"],
  google_cloud_storage: ["google"],
  google_api_python_client: ["googleapiclient"],
  msgpack_python: ["msgpack"],
  python_multipart: ["multipart"],
  pyopenssl: ["OpenSSL"],
  dnspython: ["dns"],
  gitpython: ["git"],
  pygithub: ["github"],
  markdown: ["markdown"],
  typing_extensions: ["typing_extensions"],
  tensorflow_gpu: ["tensorflow"],
  torch: ["torch"],
  pywin32: ["win32api", "win32con", "pywintypes"],
  python_jose: ["jose"],
  ruamel_yaml: ["ruamel"],
  websocket_client: ["websocket"],
};
