import { classifyObservation, scoreClassified } from './src/index.ts';
const c = classifyObservation('{"":""}', [], 'act');
console.log(c.spans, JSON.stringify(scoreClassified('{"":""}', c)));
