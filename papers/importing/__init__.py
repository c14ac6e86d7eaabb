"""The paper importer behind `manage.py import_papers`: parse, validate, load, report.

- records.py: PaperRecord, ImportFailed(file, line, message) and the per-record checks;
- formats.py: paths and directories (regular files only), decoding (UTF-8, BOM allowed),
  format detection;
- table_dump.py, abstract_list.py, jsonl.py, csv_export.py: one pure reader per format;
- safe_json.py: JSON decoding that refuses deep nesting and huge integers, never a traceback;
- tags.py: which imported tag is a venue and which a presentation track;
- loader.py: batched matching and writes; report.py: counts, conflicts, progress bar;
- pipeline.py: import_paths(), the one entry point (all files validated before any write).
"""
