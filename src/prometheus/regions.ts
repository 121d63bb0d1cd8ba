/** The syntax of an AWS region name: us-east-1, ap-southeast-2, us-gov-west-1. */
export const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
