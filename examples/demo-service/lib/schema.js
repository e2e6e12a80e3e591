'use strict';

// A tiny schema library: declares fields, checks documents against them.
// Some path names are used by the library itself, so declaring them warns.

const RESERVED = new Set(['errors', 'isNew', 'validate', 'toObject', 'schema']);

const TYPES = {
  String: (value) => typeof value === 'string',
  Number: (value) => typeof value === 'number' && !Number.isNaN(value),
  Boolean: (value) => typeof value === 'boolean',
  Date: (value) => value instanceof Date,
  Array: (value) => Array.isArray(value),
};

class Schema {
  constructor(definition, options = {}) {
    this.paths = {};
    this.options = options;
    for (const [name, spec] of Object.entries(definition)) {
      this.checkReserved(name);
      this.paths[name] = normalize(spec);
    }
  }

  checkReserved(name) {
    if (RESERVED.has(name) && !this.options.suppressReservedKeysWarning) {
      process.emitWarning(
        `\`${name}\` is a reserved schema pathname and may break some functionality. ` +
          'You are allowed to use it, but use at your own risk. ' +
          'To disable this warning pass `suppressReservedKeysWarning` as a schema option.',
      );
    }
  }

  validate(doc) {
    const problems = [];
    for (const [name, spec] of Object.entries(this.paths)) {
      const value = doc[name];
      if (value === undefined) {
        if (spec.required) problems.push(`${name} is required`);
        continue;
      }
      if (!TYPES[spec.type](value)) problems.push(`${name} must be a ${spec.type}`);
    }
    return problems;
  }
}

function normalize(spec) {
  if (typeof spec === 'function') return { type: spec.name, required: false };
  const type = typeof spec.type === 'function' ? spec.type.name : spec.type;
  if (!TYPES[type]) throw new TypeError(`unknown schema type: ${type}`);
  return { type, required: Boolean(spec.required), default: spec.default };
}

function model(name, schema) {
  return {
    modelName: name,
    schema,
    create(doc) {
      const problems = schema.validate(doc);
      if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
      return { ...doc };
    },
  };
}

module.exports = { Schema, model };
