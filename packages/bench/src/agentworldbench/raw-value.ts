// The one reader of a JSON line's raw member text lives in formats (the dataset importer uses it too).
export { topLevelValueText } from '@terrarium/formats';
